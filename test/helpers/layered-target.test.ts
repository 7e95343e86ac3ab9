import { expect } from 'chai';
import { readTargetConfig, targetEnvironment, type TargetConfig } from '../../helpers/target.js';

describe('helpers/target: the layered image\'s --containerfile and --build-arg reach the spec process', () => {
  const base: TargetConfig = { kind: 'cluster', kubeconfigPath: '/k', allowDisruptive: true, keepOnFailure: false, runId: 'r1', reportsDir: 'reports', phase: 'all', nodeReads: 'auto' };

  it('as OCP_E2E_CONTAINERFILE and OCP_E2E_BUILD_ARGS (a JSON object), read back as given', () => {
    const config: TargetConfig = { ...base, containerfile: '/qe/Containerfile', buildArgs: { MIRROR: 'http://m/x y', EMPTY: '' } };
    const env = targetEnvironment(config);
    expect(env).to.include({ OCP_E2E_CONTAINERFILE: '/qe/Containerfile', OCP_E2E_BUILD_ARGS: '{"MIRROR":"http://m/x y","EMPTY":""}' });
    expect(readTargetConfig(env)).to.deep.include({ containerfile: '/qe/Containerfile', buildArgs: { MIRROR: 'http://m/x y', EMPTY: '' } });
    // none given: neither variable, and none read
    expect(Object.keys(targetEnvironment(base)).filter((k) => /CONTAINERFILE|BUILD_ARGS/.test(k))).to.deep.equal([]);
    const read = readTargetConfig(targetEnvironment(base));
    expect([read.containerfile, read.buildArgs]).to.deep.equal([undefined, undefined]);
  });

  it('build arguments that are not a JSON object of strings are refused, naming the variable', () => {
    for (const text of ['[1]', '{"A":1}', 'A=1', 'null']) {
      expect(() => readTargetConfig({ ...targetEnvironment(base), OCP_E2E_BUILD_ARGS: text }), text).to.throw('OCP_E2E_BUILD_ARGS is not a JSON object of strings');
    }
  });
});
