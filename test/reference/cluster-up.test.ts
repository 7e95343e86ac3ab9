/** `ocp-e2e cluster up` as a person uses it: foreground, usable with kubectl, gone after Ctrl-C. */
import { expect } from 'chai';
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getProfile, REPORT_PROFILE } from '../../reference/profiles/index.js';
import { TEST_WORK_DIR } from './support/cluster.js';
import { clusterUpReady } from './support/report-session.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function portOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('ocp-e2e cluster up', function () {
  this.timeout(90_000);

  it('prints how to use the cluster, serves kubectl, and stops cleanly on SIGINT', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-cluster-up-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    const profile = getProfile(REPORT_PROFILE);
    const { current, next, channel } = profile.releases;
    const child = execa('node', ['--import', 'tsx', 'bin/ocp-e2e.ts', 'cluster', 'up', '--profile', profile.name, '--kubeconfig-out', kubeconfig, '--seed', '3'], {
      cwd: REPO,
      env: { OCP_E2E_REFERENCE_WORKDIR: TEST_WORK_DIR },
      reject: false,
      all: true,
    });
    try {
      const output = await clusterUpReady(child, 60_000);
      const osImageLines = [current.osImageTags.base, current.osImageTags.machineOsContent!, current.osImageTags.extensions!].map((tag) => `    ${tag.padEnd(14)} 127.0.0.1:`);
      for (const line of [`kubeconfig:   ${kubeconfig}`, 'API server:   https://127.0.0.1:', 'time factor:  600 (10 cluster minutes per wall second', ...osImageLines, `next release    ${next.version}`, `profile ${profile.name}`, `a Dockerfile FROM the ${current.osImageTags.base} pullspec`]) {
        expect(output).to.include(line);
      }
      const registry = /registry:\s+(127\.0\.0\.1:\d+)/.exec(output)![1]!;
      const co = await execa('kubectl', ['--kubeconfig', kubeconfig, 'get', 'co', 'machine-config', '-o', 'jsonpath={.status.versions[0].version}']);
      expect(co.stdout).to.equal(current.version);
      const cv = await execa('kubectl', ['--kubeconfig', kubeconfig, 'get', 'clusterversion', 'version', '-o', 'jsonpath={.spec.channel} {.status.availableUpdates[0].version}']);
      expect(cv.stdout, 'the channel and the update are the profile\'s').to.equal(`${channel} ${next.version}`);
      const info = await execa('kubectl', ['--kubeconfig', kubeconfig, 'get', 'configmap', '-n', 'kube-system', 'ocp-e2e-reference-cluster', '-o', 'jsonpath={.data.profile} {.data.seed} {.data.timeFactor} {.data.registry}']);
      expect(info.stdout).to.equal(`${profile.name} 3 600 ${registry}`);
      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode, result.all).to.equal(0);
      expect(await portOpen(registry), 'the registry must be stopped').to.equal(false);
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
