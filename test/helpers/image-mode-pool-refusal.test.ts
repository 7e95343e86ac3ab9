/**
 * helpers/image-mode/pool-refusal.ts: a spec is refused before cluster time when a pool it changes or judges is in
 * on-cluster image mode, or when an image-mode pool of the user's takes that pool's configs; the suite's own custom
 * pools and a spec that changes only a pool of its own are not refused for an inheritor.
 */
import { expect } from 'chai';
import { imageModePoolReason } from '../../helpers/image-mode/pool-refusal.js';
import { CUSTOM_POOL_LABEL } from '../../helpers/plan/custom-pools.js';
import type { MachineConfigPool, MachineOSConfig } from '../../helpers/types.js';

const pool = (name: string, roles: string[], labels: Record<string, string> = {}): MachineConfigPool => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfigPool',
  metadata: { name, labels },
  spec: { machineConfigSelector: { matchExpressions: [{ key: 'machineconfiguration.openshift.io/role', operator: 'In', values: roles }] } },
}) as MachineConfigPool;
const mosc = (name: string, poolName: string): MachineOSConfig => ({ metadata: { name }, spec: { machineConfigPool: { name: poolName } } }) as MachineOSConfig;

const POOLS = [pool('master', ['master']), pool('worker', ['worker']), pool('layered', ['worker', 'layered'])];

describe('image-mode pool refusal', () => {
  it('refuses a spec on a pool with a MachineOSConfig, naming it', () => {
    expect(imageModePoolReason(['worker'], POOLS, [mosc('worker', 'worker')], { inheritors: true })).to.match(/^pool worker is in on-cluster image mode \(MachineOSConfig worker\)/);
  });

  it('refuses a spec on worker when an image-mode pool of the user\'s takes the worker configs, naming both', () => {
    expect(imageModePoolReason(['worker'], POOLS, [mosc('layered', 'layered')], { inheritors: true })).to.equal(
      "pool layered takes pool worker's MachineConfigs (its machineConfigSelector selects role worker) and is in on-cluster image mode (MachineOSConfig layered): this spec's changes to pool worker would reach it and make the MCO build its image again, and its nodes boot that build, not what this spec judges pool worker by; run the spec where no image-mode pool takes pool worker's configs (or make that pool's machineConfigSelector select its own role only)",
    );
  });

  it('does not refuse for an inheritor a spec that changes a custom pool of its own only, or the master pool', () => {
    expect(imageModePoolReason(['worker'], POOLS, [mosc('layered', 'layered')], { inheritors: false })).to.equal(undefined);
    expect(imageModePoolReason(['master'], POOLS, [mosc('layered', 'layered')], { inheritors: true })).to.equal(undefined);
  });

  it('leaves out the suite\'s own custom pools, and pools without a MachineOSConfig', () => {
    const suitePool = pool('ocp-e2e-15', ['worker', 'ocp-e2e-15'], { [CUSTOM_POOL_LABEL]: 'true' });
    expect(imageModePoolReason(['worker'], [...POOLS, suitePool], [mosc('ocp-e2e-15', 'ocp-e2e-15')], { inheritors: true })).to.equal(undefined);
    expect(imageModePoolReason(['worker'], POOLS, [], { inheritors: true })).to.equal(undefined);
  });
});
