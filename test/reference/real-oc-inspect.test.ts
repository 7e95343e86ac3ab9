/**
 * `oc adm inspect co/machine-config` with the real `oc` 4.12 (../shared/upstream/bin/oc) against the reference: what
 * QE and must-gather collect after a failed upgrade. oc follows the ClusterOperator's relatedObjects; one it cannot
 * read (a resource the server does not serve, a namespace that does not exist) makes it exit 1, so the reference must
 * serve every one the 4.12 operator lists. A missing binary fails this test; it does not skip.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { MC_API_VERSION, MCO_NAMESPACE } from '../../reference/constants.js';
import { type Harness, type Obj, startHarness, waitFor } from './support/cluster.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OC = path.resolve(REPO, '..', 'shared', 'upstream', 'bin', 'oc');
const WORKERS = { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } };

interface RelatedObject {
  group: string;
  resource: string;
  name?: string;
}

const KUBELET_AND_CRIO_CONFIGS = [
  { apiVersion: MC_API_VERSION, kind: 'KubeletConfig', metadata: { name: 'set-max-pods' }, spec: { machineConfigPoolSelector: WORKERS, kubeletConfig: { maxPods: 300 } } },
  { apiVersion: MC_API_VERSION, kind: 'ContainerRuntimeConfig', metadata: { name: 'set-log-level' }, spec: { machineConfigPoolSelector: WORKERS, containerRuntimeConfig: { logLevel: 'debug' } } },
];

describe('the real oc against the reference: oc adm inspect co/machine-config', function () {
  this.timeout(180_000);
  let h: Harness;
  let dest: string;
  const oc = async (args: string[], input?: string) => {
    const r = await execa(OC, args, { env: { KUBECONFIG: h.cluster.kubeconfigPath }, input, reject: false, timeout: 120_000 });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing: expected ${OC} (../shared/upstream/bin/oc, see its README); this test runs it and does not skip`);
    h = await startHarness({ profile: '4.12-ga' });
    dest = mkdtempSync(path.join(os.tmpdir(), 'ocp-e2e-inspect-'));
    // One of each kind the reference serves without a controller, created as a user would: inspect must gather them.
    const created = await oc(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: KUBELET_AND_CRIO_CONFIGS }));
    expect(created.exitCode, created.stderr).to.equal(0);
  });
  after(async () => {
    await h?.cluster.stop();
    if (dest) rmSync(dest, { recursive: true, force: true });
  });

  it('exits 0 and gathers every related object, the MCO namespace\'s objects and each of its containers\' logs', async () => {
    const pods = await waitFor('every MCO pod Running', async () => {
      const list = (await h.k.list<Obj>('Pod', { namespace: MCO_NAMESPACE })).items;
      return list.length === 7 && list.every((p) => p.status?.phase === 'Running') ? list : undefined;
    }, 60_000);
    const out = path.join(dest, 'inspect');
    const r = await oc(['adm', 'inspect', 'co/machine-config', '--dest-dir', out]);
    expect(r.exitCode, `oc adm inspect failed:\n${r.stderr}`).to.equal(0);
    expect(r.stdout).to.include(`Wrote inspect data to ${out}.`);

    // The related objects oc followed are the ones the ClusterOperator lists, and each is in the tree.
    const co = parse(readFileSync(path.join(out, 'cluster-scoped-resources/config.openshift.io/clusteroperators/machine-config.yaml'), 'utf8')) as Obj;
    const related = co.status.relatedObjects as RelatedObject[];
    expect(related.map((o) => o.resource)).to.include.members(['namespaces', 'machineconfigpools', 'controllerconfigs', 'kubeletconfigs', 'containerruntimeconfigs', 'machineconfigs', 'nodes']);
    for (const ref of related) {
      if (ref.resource === 'namespaces') {
        expect(existsSync(path.join(out, 'namespaces', ref.name!, `${ref.name}.yaml`)), `namespace ${ref.name} gathered`).to.equal(true);
        continue;
      }
      // Every object of the resource, one file each, under cluster-scoped-resources/<group>/<resource>/.
      const listed = await oc(['get', ref.group ? `${ref.resource}.${ref.group}` : ref.resource, '-o', 'name']);
      const names = listed.stdout.split('\n').filter(Boolean).map((n) => `${n.split('/')[1]}.yaml`).sort();
      expect(names, `${ref.resource} on the server`).to.not.be.empty;
      const dir = path.join(out, 'cluster-scoped-resources', ref.group || 'core', ref.resource);
      expect(existsSync(dir) ? readdirSync(dir).sort() : [], `${ref.resource} gathered in ${dir}`).to.deep.equal(names);
    }

    // Each container of each MCO pod: its current log, non-empty, as the kubelet serves it.
    const nsDir = path.join(out, 'namespaces', MCO_NAMESPACE);
    // What oc lists in every namespace it inspects, Kubernetes' own kinds all served (the add-on operators' CRDs,
    // servicemonitors and OVN's egress kinds, are not: oc warns and goes on).
    for (const f of ['core/pods.yaml', 'core/configmaps.yaml', 'core/events.yaml', 'core/secrets.yaml', 'apps/daemonsets.yaml', 'apps/deployments.yaml',
      'core/endpoints.yaml', 'discovery.k8s.io/endpointslices.yaml', 'networking.k8s.io/networkpolicies.yaml', 'core/persistentvolumeclaims.yaml', 'policy/poddisruptionbudgets.yaml']) {
      expect(existsSync(path.join(nsDir, f)), f).to.equal(true);
    }
    const skipped = [...new Set([...r.stderr.matchAll(/doesn't have a resource type (\S+), skipping/g)].map((m) => m[1]))].sort();
    expect(skipped).to.deep.equal(['egressfirewalls', 'egressqoses', 'servicemonitors']);
    for (const pod of pods) {
      for (const c of pod.spec.containers as Array<{ name: string }>) {
        const log = path.join(nsDir, 'pods', pod.metadata.name!, c.name, c.name, 'logs', 'current.log');
        expect(existsSync(log), `log of ${pod.metadata.name}/${c.name}`).to.equal(true);
        expect(readFileSync(log, 'utf8'), `log of ${pod.metadata.name}/${c.name}`).to.match(/\S/);
      }
    }
  });
});
