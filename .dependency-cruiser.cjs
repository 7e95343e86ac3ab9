/**
 * The project's import rules (docs/architecture.md, "Who may import what"), checked by scripts/check-imports.sh before
 * the tests run. Paths are relative to the folder the check runs in (the repository, or a test's fixture tree).
 * bin/, test/ and bench/ may import anything, so they are not cruised.
 */
const ours = ['local']; // relative imports resolved inside the tree; npm packages and node: builtins are free

module.exports = {
  forbidden: [
    {
      name: 'specs-import-helpers-only',
      comment: 'specs/ read like the bug report: they use the suite vocabulary of helpers/ and nothing else of ours',
      severity: 'error',
      from: { path: '^specs/' },
      to: { dependencyTypes: ours, pathNot: '^helpers/' },
    },
    {
      name: 'helpers-import-helpers-and-lib',
      comment: 'the suite never reaches into the reference model, the mock server or the command line',
      severity: 'error',
      from: { path: '^helpers/' },
      to: { dependencyTypes: ours, pathNot: '^(helpers|lib)/' },
    },
    {
      name: 'reference-imports-reference-lib-and-mock-index',
      comment: 'the reference never uses the suite\'s helpers; it starts the mock only through mock/index.ts',
      severity: 'error',
      from: { path: '^reference/' },
      to: { dependencyTypes: ours, pathNot: '^(reference/|lib/|mock/index\\.ts$)' },
    },
    {
      name: 'mock-imports-nothing-of-ours',
      comment: 'the mock is a generic Kubernetes API server that stands alone: not even lib/ (a client layer)',
      severity: 'error',
      from: { path: '^mock/' },
      to: { dependencyTypes: ours, pathNot: '^mock/' },
    },
    {
      name: 'lib-imports-lib-only',
      comment: 'lib/ holds the leaves both sides share; a leaf that imports a side is no longer a leaf',
      severity: 'error',
      from: { path: '^lib/' },
      to: { dependencyTypes: ours, pathNot: '^lib/' },
    },
    {
      name: 'imports-resolve',
      comment: 'an import the checker cannot resolve could hide a broken rule',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true, // type-only imports count too
    enhancedResolveOptions: {
      extensions: ['.ts', '.cts', '.js', '.cjs', '.json'],
    },
  },
};
