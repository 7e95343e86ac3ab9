import { expect } from 'chai';
import { MCO_4_20 } from '../../../reference/profiles/mco-code.js';
import { ANN, LABEL } from '../../../reference/constants.js';
import {
  clearDegradedStatus,
  goPrintVersions,
  isMachineConfigPoolConfigurationValid,
  machineConfigPoolStatus,
  notFoundError,
  requiredPoolsTick,
  requiredPoolsTimeoutError,
  syncAvailableStatus,
  syncDegradedStatus,
  syncProgressingStatus,
  syncUpgradeableStatus,
  syncVersion,
  type ValidityInput,
} from '../../../reference/mco/operator-status.js';
import type { MachineConfig, MachineConfigPool } from '../../../reference/mco/types.js';

const NOW = '2022-09-12T10:00:00Z';

function mc(name: string, annotations?: Record<string, string>, osImageURL?: string): MachineConfig {
  return { metadata: { name, annotations }, spec: { osImageURL } };
}

function pool(overrides: Partial<MachineConfigPool['spec']> = {}, status?: MachineConfigPool['status']): MachineConfigPool {
  return {
    metadata: { name: 'dummy-pool', generation: 1 },
    spec: { configuration: { name: 'g' }, ...overrides },
    status: status ?? { configuration: { name: 'g', source: [{ name: 'c-0' }, { name: 'u-0' }] } },
  };
}

/** The fixture of upstream's TestIsMachineConfigPoolConfigurationValid: version v2, release rv2, URL myurl. */
function check(p: MachineConfigPool, configs: MachineConfig[], skip = false): string | undefined {
  const byName = new Map(configs.map((c) => [c.metadata.name!, c]));
  const input: ValidityInput = {
    pool: p,
    controllerVersion: 'v2',
    releaseVersion: 'rv2',
    osImageURL: 'myurl',
    get: (name) => {
      const found = byName.get(name);
      if (!found) throw notFoundError(name);
      return found;
    },
    skipOverriddenOsImage: skip,
  };
  return isMachineConfigPoolConfigurationValid(input)?.message;
}

const good = (extra: Record<string, string> = {}, url = 'myurl'): MachineConfig =>
  mc('g', { [ANN.generatedByControllerVersion]: 'v2', [ANN.releaseImageVersion]: 'rv2', ...extra }, url);

describe('reference operator: isMachineConfigPoolConfigurationValid (spec §1.3, upstream table)', () => {
  const sources = [mc('c-0', { [ANN.generatedByControllerVersion]: 'v2' }), mc('u-0')];

  it('row 1: empty spec configuration', () => {
    expect(check(pool({ configuration: { name: '' } }), [])).to.equal('configuration spec for pool dummy-pool is empty: <unknown>');
  });
  it('row 2: empty status configuration', () => {
    expect(check(pool({}, {}), [])).to.equal('configuration status for pool dummy-pool is empty: <unknown>');
  });
  it('row 3: empty source list', () => {
    expect(check(pool({}, { configuration: { name: 'g', source: [] } }), [])).to.equal(
      'list of MachineConfigs that were used to generate configuration for pool dummy-pool is empty: <unknown>',
    );
  });
  it('row 4: the getter error of a missing source', () => {
    expect(check(pool(), [good(), sources[0]!])).to.equal('machineconfig.machineconfiguration.openshift.io "u-0" not found');
  });
  it('row 5: rendered config without controller annotation', () => {
    expect(check(pool(), [mc('g', {}, 'myurl'), ...sources])).to.equal('g must be created by controller version v2: <unknown>');
  });
  it('row 6: controller version mismatch on the rendered config, then on a source', () => {
    expect(check(pool(), [mc('g', { [ANN.generatedByControllerVersion]: 'v1' }), ...sources])).to.equal(
      'controller version mismatch for g expected v2 has v1: <unknown>',
    );
    expect(check(pool(), [good(), mc('c-0', { [ANN.generatedByControllerVersion]: 'v1' }), mc('u-0')])).to.equal(
      'controller version mismatch for c-0 expected v2 has v1: <unknown>',
    );
  });
  it('passes when everything matches', () => {
    expect(check(pool(), [good(), ...sources])).to.equal(undefined);
  });
  it('row 7: osImageURL mismatch, also when overridden if the profile does not skip', () => {
    expect(check(pool(), [good({}, 'wrongurl'), ...sources])).to.equal('osImageURL mismatch for dummy-pool in g expected: myurl got: wrongurl');
    expect(check(pool(), [good({ [ANN.osImageUrlOverridden]: 'true' }, 'overriddenurl'), ...sources])).to.match(/^osImageURL mismatch/);
  });
  it('FIX: an overridden rendered config skips row 7 (presence of the annotation is enough)', () => {
    expect(check(pool(), [good({ [ANN.osImageUrlOverridden]: '' }, 'overriddenurl'), ...sources], true)).to.equal(undefined);
    expect(check(pool(), [good({}, 'wrongurl'), ...sources], true)).to.equal('osImageURL mismatch for dummy-pool in g expected: myurl got: wrongurl');
  });
  it('rows 8 and 9: release image version', () => {
    expect(check(pool(), [good({ [ANN.releaseImageVersion]: 'rv1' }), ...sources])).to.equal(
      'release image version mismatch for dummy-pool in g expected: rv2 got: rv1',
    );
    expect(check(pool(), [mc('g', { [ANN.generatedByControllerVersion]: 'v2' }, 'myurl'), ...sources])).to.equal(
      `Unable to access annotation ${ANN.releaseImageVersion} for g expected: rv2`,
    );
  });
  it('the status suffix names the pool situation', () => {
    const updating = pool({ configuration: { name: 'rendered-new' } }, {
      configuration: { name: 'g', source: [] },
      machineCount: 3,
      updatedMachineCount: 1,
      readyMachineCount: 1,
      conditions: [{ type: 'Updating', status: 'True' }],
    });
    expect(machineConfigPoolStatus(updating)).to.equal('1 (ready 1) out of 3 nodes are updating to latest configuration rendered-new');
    const nodeDegraded = pool({}, { conditions: [{ type: 'NodeDegraded', status: 'True', reason: '1 nodes are reporting degraded status on sync', message: 'Node a is reporting: "x"' }] });
    expect(machineConfigPoolStatus(nodeDegraded)).to.equal(
      'pool is degraded because nodes fail with "1 nodes are reporting degraded status on sync": "Node a is reporting: \\"x\\""',
    );
  });
});

describe('reference operator: required-pools poll', () => {
  const master = (status: MachineConfigPool['status'], paused = false): MachineConfigPool => ({
    metadata: { name: 'master', generation: 2, labels: { [LABEL.requiredForUpgrade]: '' } },
    spec: { configuration: { name: 'g' }, paused },
    status: { observedGeneration: 2, ...status },
  });
  const base = {
    controllerVersion: 'v2',
    releaseVersion: 'rv2',
    expectedOsImage: () => 'myurl',
    skipOverriddenOsImage: false,
    get: (name: string) => (name === 'g' ? good() : mc(name)),
  };
  const configured = { configuration: { name: 'g', source: [{ name: 'u-0' }] } };

  it('any degraded pool blocks, required or not', () => {
    const worker: MachineConfigPool = {
      metadata: { name: 'worker' },
      spec: {},
      status: { machineCount: 2, readyMachineCount: 1, updatedMachineCount: 1, unavailableMachineCount: 1, conditions: [{ type: 'Degraded', status: 'True' }] },
    };
    expect(requiredPoolsTick({ ...base, pools: [worker] })).to.deep.equal({
      kind: 'retry',
      lastError: 'error pool worker is not ready, retrying. Status: (pool degraded: true total: 2, ready 1, updated: 1, unavailable: 1)',
    });
  });
  it('wraps the validity error', () => {
    const tick = requiredPoolsTick({ ...base, expectedOsImage: () => 'other', pools: [master({ ...configured, conditions: [{ type: 'Updated', status: 'True' }] })] });
    expect(tick).to.deep.equal({
      kind: 'retry',
      lastError: 'pool master has not progressed to latest configuration: osImageURL mismatch for master in g expected: other got: myurl, retrying',
    });
  });
  it('a configmap read error only logs', () => {
    const tick = requiredPoolsTick({ ...base, expectedOsImage: () => { throw new Error('boom'); }, pools: [master(configured)] });
    expect(tick).to.deep.equal({ kind: 'retry', logged: 'Error getting configmap osImageURL: "boom"' });
  });
  it('waits for Updated, stops on a paused pool, passes when updated', () => {
    const counts = { machineCount: 3, readyMachineCount: 2, updatedMachineCount: 2, unavailableMachineCount: 1, degradedMachineCount: 0 };
    expect(requiredPoolsTick({ ...base, pools: [master({ ...configured, ...counts })] })).to.deep.equal({
      kind: 'retry',
      lastError: 'error required pool master is not ready, retrying. Status: (total: 3, ready 2, updated: 2, unavailable: 1, degraded: 0)',
    });
    const paused = requiredPoolsTick({ ...base, pools: [master({ ...configured, ...counts }, true)] });
    expect(paused.kind).to.equal('stop');
    expect((paused as { error: string }).error).to.equal("Required MachineConfigPool 'master' is paused and can not sync until it is unpaused");
    expect(requiredPoolsTick({ ...base, pools: [master({ ...configured, conditions: [{ type: 'Updated', status: 'True' }] })] })).to.deep.equal({ kind: 'done' });
  });
  it("4.20's texts: MachineConfigPool, the Degraded message in the degraded text, paused errors on their own", () => {
    const code = MCO_4_20.operator.requiredPools;
    const worker: MachineConfigPool = {
      metadata: { name: 'worker' },
      spec: {},
      status: { machineCount: 2, readyMachineCount: 1, updatedMachineCount: 1, unavailableMachineCount: 1, conditions: [{ type: 'Degraded', status: 'True', message: '1 nodes are reporting degraded status on sync' }] },
    };
    expect(requiredPoolsTick({ ...base, code, pools: [worker] })).to.deep.equal({
      kind: 'retry',
      lastError: 'error MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 2, ready 1, updated: 1, unavailable: 1, reason: 1 nodes are reporting degraded status on sync)',
    });
    const invalid = requiredPoolsTick({ ...base, code, expectedOsImage: () => 'other', pools: [master({ ...configured, conditions: [{ type: 'Updated', status: 'True' }] })] });
    expect(invalid).to.deep.include({ lastError: 'MachineConfigPool master has not progressed to latest configuration: osImageURL mismatch for master in g expected: other got: myurl, retrying' });
    const counts = { machineCount: 3, readyMachineCount: 2, updatedMachineCount: 2, unavailableMachineCount: 1, degradedMachineCount: 0 };
    const paused = requiredPoolsTick({ ...base, code, pools: [master({ ...configured, ...counts }, true)] });
    expect(paused).to.deep.include({ kind: 'stop', alone: true, error: 'error required MachineConfigPool master is paused and cannot sync until it is unpaused' });
    expect((paused as { lastError: string }).lastError).to.equal('error required MachineConfigPool master is not ready, retrying. Status: (total: 3, ready 2, updated: 2, unavailable: 1, degraded: 0)');
    const pausedUpdated = requiredPoolsTick({ ...base, code, pools: [{ ...master({ ...configured, ...counts, conditions: [{ type: 'Updated', status: 'True' }] }, true), metadata: { name: 'master', generation: 3, labels: { [LABEL.requiredForUpgrade]: '' } } }] });
    expect(pausedUpdated).to.deep.include({ error: 'the required MachineConfigPool master was paused with no pending updates; no further syncing will occur until it is unpaused' });
  });
  it('aggregates the timeout like upstream', () => {
    expect(requiredPoolsTimeoutError(undefined)).to.equal('error during syncRequiredMachineConfigPools: timed out waiting for the condition');
    expect(requiredPoolsTimeoutError('x, retrying')).to.equal('error during syncRequiredMachineConfigPools: [timed out waiting for the condition, x, retrying]');
  });
});

describe('reference operator: ClusterOperator conditions (spec §5)', () => {
  const V_OLD = '4.12.0-0.nightly-2022-09-08-002336';
  const V_NEW = '4.12.0-0.nightly-2022-09-12-152748';
  const versions = [{ name: 'operator', version: V_OLD }];

  it('prints versions like Go', () => {
    expect(goPrintVersions(versions)).to.equal(`[{operator ${V_OLD}}]`);
  });
  it('Degraded message depends on whether the operator is at the reported version', () => {
    const err = { task: 'RequiredPools' as const, message: 'e' };
    const steady = syncDegradedStatus(syncProgressingStatus({ conditions: [], versions }, V_OLD, NOW).conditions, err, V_OLD, versions, NOW);
    expect(steady.find((c) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'RequiredPoolsFailed', message: `Failed to resync ${V_OLD} because: e` });
    expect(steady.find((c) => c.type === 'Progressing')).to.include({ status: 'False', message: `Error while reconciling ${V_OLD}` });
    const upgrading = syncDegradedStatus(syncProgressingStatus({ conditions: [], versions }, V_NEW, NOW).conditions, err, V_NEW, versions, NOW);
    expect(upgrading.find((c) => c.type === 'Degraded')!.message).to.equal(`Unable to apply ${V_NEW}: e`);
    expect(upgrading.find((c) => c.type === 'Progressing')).to.include({ status: 'True', message: `Unable to apply ${V_NEW}` });
    expect(syncVersion(upgrading, versions, V_NEW)).to.deep.equal(versions);
  });
  it('only the task that degraded clears Degraded', () => {
    const degraded = [{ type: 'Degraded', status: 'True', reason: 'RequiredPoolsFailed', message: 'x', lastTransitionTime: NOW }];
    expect(clearDegradedStatus(degraded, 'RenderConfig', NOW)).to.deep.equal(degraded);
    expect(clearDegradedStatus(degraded, 'RequiredPools', NOW)[0]).to.include({ status: 'False', reason: '', message: '' });
  });
  it('Available stays True on a RequiredPools failure and goes False on other tasks', () => {
    const a = syncAvailableStatus([], { task: 'RequiredPools', message: 'x' }, versions, true, NOW)[0]!;
    expect(a).to.include({ status: 'True', reason: 'AsExpected', message: `Cluster has deployed [{operator ${V_OLD}}]` });
    const b = syncAvailableStatus([], { task: 'RenderConfig', message: 'refusing' }, versions, true, NOW)[0]!;
    expect(b).to.include({ status: 'False', reason: 'RenderConfigFailed', message: `Cluster not available for [{operator ${V_OLD}}]: refusing` });
    const c = syncAvailableStatus([], { task: 'RenderConfig', message: 'refusing' }, versions, false, NOW)[0]!;
    expect(c).to.include({ status: 'False', reason: '', message: `Cluster not available for [{operator ${V_OLD}}]` });
  });
  it('Upgradeable follows the pools', () => {
    const p = (type: string): MachineConfigPool => ({ metadata: { name: 'p' }, spec: {}, status: { conditions: [{ type, status: 'True' }] } });
    expect(syncUpgradeableStatus([], [p('Degraded')], NOW)[0]).to.include({ status: 'False', reason: 'DegradedPool' });
    expect(syncUpgradeableStatus([], [p('Updating')], NOW)[0]).to.include({ status: 'False', reason: 'PoolUpdating' });
    // 4.19 on (release-4.20 status.go): an updating pool leaves the operator upgradeable
    expect(syncUpgradeableStatus([], [p('Updating')], NOW, MCO_4_20.operator.upgradeableFalseWhilePoolsUpdate)[0]).to.include({ status: 'True', reason: 'AsExpected' });
    expect(syncUpgradeableStatus([], [p('Updated')], NOW)[0]).to.include({ status: 'True', reason: 'AsExpected' });
  });
  it('lastTransitionTime moves only when the status flips', () => {
    const first = syncAvailableStatus([], undefined, versions, true, '2022-01-01T00:00:00Z');
    const second = syncAvailableStatus(first, undefined, [{ name: 'operator', version: V_NEW }], true, NOW);
    expect(second[0]!.lastTransitionTime).to.equal('2022-01-01T00:00:00Z');
    expect(second[0]!.message).to.equal(`Cluster has deployed [{operator ${V_NEW}}]`);
  });
});
