/**
 * A small OpenShift-shaped cluster on the project's mock API server (real HTTPS, real watch, the reference's CRDs),
 * with no controllers: tests move the objects themselves to play whatever the cluster would do, then check what the
 * helpers see, wait for and report.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../mock/index.js';
import { Cluster } from '../../helpers/cluster.js';
import { KINDS, type KindRef } from '../../lib/kube/kinds.js';
import type { Condition } from '../../helpers/types.js';

export const FROM = '4.12.0-0.nightly-2022-09-08-002336';
export const TO = '4.12.0-0.nightly-2022-09-12-152748';
export const RELEASE_FROM = `127.0.0.1:5000/ocp/release:${FROM}`;
export const RELEASE_TO = `127.0.0.1:5000/ocp/release:${TO}`;

const CRD_DIR = new URL('../../reference/crds/', import.meta.url);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export function cond(type: string, status: 'True' | 'False', message = '', reason = ''): Condition {
  return { type, status, message, reason, lastTransitionTime: new Date().toISOString() };
}

export class MockCluster {
  readonly kubeconfigPath: string;
  readonly cluster: Cluster;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  private constructor(
    readonly server: RunningApiServer,
    kubeconfigPath: string,
  ) {
    this.kubeconfigPath = kubeconfigPath;
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    this.cluster = new Cluster(kc);
  }

  static async start(options: Pick<ApiServerOptions, 'faultDraws'> = {}): Promise<MockCluster> {
    const crds = readdirSync(CRD_DIR)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => parse(readFileSync(new URL(f, CRD_DIR), 'utf8')) as object);
    const server = await startApiServer({ crds, bookmarkIntervalMs: 500, ...options });
    const path = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-helpers-')), 'kubeconfig');
    await server.writeKubeconfig(path);
    return new MockCluster(server, path);
  }

  async stop(): Promise<void> {
    await this.server.close();
  }

  async create(ref: KindRef, body: Record<string, unknown>, status?: Record<string, unknown>): Promise<void> {
    const name = (body.metadata as { name: string }).name;
    if (ref.kind === 'Node') {
      await this.core.createNode({ body: { apiVersion: 'v1', kind: 'Node', ...body } as never });
    } else {
      await this.custom.createClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, body: { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, ...body } });
    }
    if (status) await this.patchStatus(ref, name, status);
  }

  async patch(ref: KindRef, name: string, body: Record<string, unknown>): Promise<void> {
    if (ref.kind === 'Node') await this.core.patchNode({ name, body }, merge);
    else await this.custom.patchClusterCustomObject({ group: ref.group, version: ref.version, plural: ref.plural, name, body }, merge);
  }

  async patchStatus(ref: KindRef, name: string, status: Record<string, unknown>): Promise<void> {
    if (ref.kind === 'Node') await this.core.patchNodeStatus({ name, body: { status } }, merge);
    else await this.custom.patchClusterCustomObjectStatus({ group: ref.group, version: ref.version, plural: ref.plural, name, body: { status } }, merge);
  }

  /** ClusterVersion at FROM offering TO, machine-config at FROM, pools master (3) and worker (2) settled on rendered-*-a. */
  async seedSettledCluster(): Promise<void> {
    await this.create(KINDS.ClusterVersion, { metadata: { name: 'version' }, spec: { clusterID: 'c0ffee' } }, {
      desired: { version: FROM, image: RELEASE_FROM },
      history: [{ state: 'Completed', version: FROM, image: RELEASE_FROM, startedTime: new Date().toISOString(), completionTime: new Date().toISOString(), verified: false }],
      availableUpdates: [{ version: TO, image: RELEASE_TO }],
      observedGeneration: 1,
      conditions: [cond('Available', 'True', `Done applying ${FROM}`), cond('Progressing', 'False', `Cluster version is ${FROM}`), cond('Failing', 'False')],
    });
    await this.create(KINDS.ClusterOperator, { metadata: { name: 'machine-config' }, spec: {} }, {
      versions: [{ name: 'operator', version: FROM }],
      conditions: [cond('Available', 'True', `Cluster has deployed [{operator ${FROM}}]`, 'AsExpected'), cond('Progressing', 'False', `Cluster version is ${FROM}`), cond('Degraded', 'False')],
    });
    for (const [pool, count] of [['master', 3], ['worker', 2]] as const) {
      const rendered = `rendered-${pool}-a`;
      await this.create(KINDS.MachineConfig, {
        metadata: { name: rendered, annotations: { 'machineconfiguration.openshift.io/release-image-version': FROM } },
        spec: { osImageURL: 'r/os@sha256:' + '0a'.repeat(32) },
      });
      await this.create(
        KINDS.MachineConfigPool,
        {
          metadata: { name: pool },
          spec: {
            machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': pool } },
            nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${pool}`]: '' } },
            configuration: { name: rendered, source: [{ name: `00-${pool}` }] },
          },
        },
        this.poolStatus(rendered, count, 'updated'),
      );
      for (let i = 0; i < count; i++) {
        await this.create(
          KINDS.Node,
          {
            metadata: {
              name: `${pool}-${i}`,
              labels: { [`node-role.kubernetes.io/${pool}`]: '', ...(pool === 'master' ? { 'node-role.kubernetes.io/worker': '' } : {}) },
              annotations: {
                'machineconfiguration.openshift.io/currentConfig': rendered,
                'machineconfiguration.openshift.io/desiredConfig': rendered,
                'machineconfiguration.openshift.io/state': 'Done',
              },
            },
          },
          { conditions: [{ type: 'Ready', status: 'True' }] },
        );
      }
    }
  }

  poolStatus(rendered: string, count: number, state: 'updated' | 'updating' | 'degraded', message = ''): Record<string, unknown> {
    const updated = state === 'updated';
    return {
      observedGeneration: 100,
      configuration: { name: updated ? rendered : `${rendered.replace(/-[^-]+$/, '')}-old`, source: [] },
      machineCount: count,
      updatedMachineCount: updated ? count : 0,
      readyMachineCount: updated ? count : 0,
      unavailableMachineCount: 0,
      degradedMachineCount: state === 'degraded' ? 1 : 0,
      conditions: [
        cond('Updated', updated ? 'True' : 'False'),
        cond('Updating', updated ? 'False' : 'True'),
        cond('NodeDegraded', state === 'degraded' ? 'True' : 'False', message, state === 'degraded' ? '1 nodes are reporting degraded status on sync' : ''),
        cond('RenderDegraded', 'False'),
        cond('Degraded', state === 'degraded' ? 'True' : 'False'),
      ],
    };
  }
}

/**
 * A settled mock cluster for the enclosing mocha block: started before its tests, stopped after them. Returns the
 * accessor the tests call once the block runs.
 */
export function useSettledMockCluster(): () => MockCluster {
  let mock: MockCluster | undefined;
  before(async () => {
    mock = await MockCluster.start();
    await mock.seedSettledCluster();
  });
  after(async () => {
    await mock?.stop();
  });
  return () => mock!;
}
