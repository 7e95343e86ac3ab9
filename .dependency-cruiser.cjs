/**
 * The project's import rules (docs/architecture.md, "Who may import what"), checked by scripts/check-imports.sh before
 * the tests run. Paths are relative to the folder the check runs in (the repository, or a test's fixture tree).
 * bin/, test/ and bench/ may import anything, so they are not cruised.
 */

/** A folder's imports of our own code (relative imports; npm packages and node: builtins are free) must match `allowed`. */
const onlyImports = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { dependencyTypes: ['local'], pathNot: allowed },
});

module.exports = {
  forbidden: [
    onlyImports('specs-import-helpers-only', 'specs/ read like the bug report: they use the suite vocabulary of helpers/ and nothing else of ours', '^specs/', '^helpers/'),
    onlyImports('helpers-import-helpers-and-lib', 'the suite never reaches into the reference model, the mock server or the command line', '^helpers/', '^(helpers|lib)/'),
    onlyImports('reference-imports-reference-lib-and-mock-index', "the reference never uses the suite's helpers; it starts the mock only through mock/index.ts", '^reference/', '^(reference/|lib/|mock/index\\.ts$)'),
    onlyImports('mock-imports-nothing-of-ours', 'the mock is a generic Kubernetes API server that stands alone: not even lib/ (a client layer)', '^mock/', '^mock/'),
    onlyImports('lib-imports-lib-only', 'lib/ holds the leaves both sides share; a leaf that imports a side is no longer a leaf', '^lib/', '^lib/'),
    {
      name: 'no-circular',
      comment: 'a module must not reach itself through its imports: a circle makes its parts one unit that cannot be read, tested or changed alone',
      severity: 'error',
      from: {},
      to: { circular: true },
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
    // exportsFields and conditionNames: packages' subpath exports (`@bufbuild/cel/ext`) resolve as Node resolves them.
    enhancedResolveOptions: { extensions: ['.ts', '.cts', '.js', '.cjs', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
