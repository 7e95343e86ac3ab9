/** The built-in pools as the MCO's manifests define them (spec §1.2): only master is required for upgrade. */
import { LABEL, MC_API_VERSION } from '../constants.js';
import type { MachineConfigPool } from './types.js';

export function masterPool(): MachineConfigPool {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfigPool',
    metadata: {
      name: 'master',
      labels: {
        [LABEL.requiredForUpgrade]: '',
        [LABEL.mcoBuiltIn]: '',
        [`${LABEL.poolSelectorPrefix}master`]: '',
      },
    },
    spec: {
      machineConfigSelector: { matchLabels: { [LABEL.role]: 'master' } },
      nodeSelector: { matchLabels: { [`${LABEL.nodeRolePrefix}master`]: '' } },
      paused: false,
    },
  };
}

export function workerPool(): MachineConfigPool {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfigPool',
    metadata: {
      name: 'worker',
      labels: { [LABEL.mcoBuiltIn]: '', [`${LABEL.poolSelectorPrefix}worker`]: '' },
    },
    spec: {
      machineConfigSelector: { matchLabels: { [LABEL.role]: 'worker' } },
      nodeSelector: { matchLabels: { [`${LABEL.nodeRolePrefix}worker`]: '' } },
      paused: false,
    },
  };
}

/**
 * An infra pool as OpenShift documents creating one (machine_configuration "Creating infrastructure machine sets",
 * the MachineConfigPool `infra`): it selects the configs of role worker and infra, so every worker config, an
 * override included, rolls onto its nodes too; its nodes carry the worker and the infra role, and a custom pool wins
 * over worker for them (getPoolsForNode).
 */
export function infraPool(): MachineConfigPool {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfigPool',
    metadata: { name: 'infra', labels: { [`${LABEL.poolSelectorPrefix}infra`]: '' } },
    spec: {
      machineConfigSelector: { matchExpressions: [{ key: LABEL.role, operator: 'In', values: ['worker', 'infra'] }] },
      nodeSelector: { matchLabels: { [`${LABEL.nodeRolePrefix}infra`]: '' } },
      paused: false,
    },
  };
}
