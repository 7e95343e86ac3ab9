import { expect } from 'chai';
import type { ClusterSnapshot } from '../../helpers/cluster-watcher.js';
import { osImageCheckDeadlock } from '../../helpers/facts/diagnoses.js';

const MISMATCH =
  'Unable to apply 4.12.0-0.nightly-2022-09-12-152748: error during syncRequiredMachineConfigPools: [timed out waiting for the condition, ' +
  'pool master has not progressed to latest configuration: osImageURL mismatch for master in rendered-master-abc expected: a got: b, retrying]';
const GAVE_UP = 'Unable to apply 4.12.0-0.nightly-2022-09-12-152748: wait has exceeded 40 minutes for these operators: machine-config';

function snapshot(opts: { cvMessage: string; degradedMessage: string; masterUpdated: 'True' | 'False' }): ClusterSnapshot {
  const cond = (type: string, status: string, message = '') => ({ type, status, message, lastTransitionTime: '2022-09-12T00:00:00Z' });
  return {
    clusterVersion: { metadata: { name: 'version' }, status: { conditions: [cond('Progressing', 'True', opts.cvMessage)] } },
    operators: new Map([['machine-config', { metadata: { name: 'machine-config' }, status: { conditions: [cond('Degraded', 'True', opts.degradedMessage)] } }]]),
    // Master has rolled out rendered-master-abc to its 3 machines (Updated=True), or is still at it (Updated=False).
    pools: new Map([
      [
        'master',
        {
          metadata: { name: 'master', generation: 2 },
          spec: { configuration: { name: 'rendered-master-abc' } },
          status: {
            observedGeneration: 2,
            configuration: { name: opts.masterUpdated === 'True' ? 'rendered-master-abc' : 'rendered-master-old' },
            machineCount: 3,
            updatedMachineCount: opts.masterUpdated === 'True' ? 3 : 1,
            conditions: [cond('Updated', opts.masterUpdated), cond('Updating', opts.masterUpdated === 'True' ? 'False' : 'True'), cond('Degraded', 'False')],
          },
        },
      ],
    ]),
    nodes: new Map(),
    machineConfigs: new Map(),
  } as unknown as ClusterSnapshot;
}

describe('upgrade wait: the osImageURL-check deadlock of the report', () => {
  it('stops the wait once ClusterVersion gave up on a machine-config stuck on the check with masters updated', () => {
    const failure = osImageCheckDeadlock(snapshot({ cvMessage: GAVE_UP, degradedMessage: MISMATCH, masterUpdated: 'True' }));
    expect(failure).to.include('waiting longer cannot help');
    expect(failure).to.include('osImageURL mismatch for master in rendered-master-abc');
  });

  it('keeps waiting while the CVO is still within its 40 minutes', () => {
    expect(osImageCheckDeadlock(snapshot({ cvMessage: 'Working towards 4.12.0-0.nightly-2022-09-12-152748: 612 of 807 done (76% complete), waiting up to 40 minutes on machine-config', degradedMessage: MISMATCH, masterUpdated: 'True' }))).to.equal(undefined);
  });

  it('keeps waiting while masters are still rolling (a slow healthy upgrade also exceeds 40 minutes)', () => {
    expect(osImageCheckDeadlock(snapshot({ cvMessage: GAVE_UP, degradedMessage: MISMATCH, masterUpdated: 'False' }))).to.equal(undefined);
  });

  it('keeps waiting when machine-config is degraded for another reason', () => {
    const rollout = MISMATCH.replace(/osImageURL mismatch.*got: b/, 'controller version mismatch for rendered-master-old expected x has y: 1 (ready 1) out of 3 nodes are updating');
    expect(osImageCheckDeadlock(snapshot({ cvMessage: GAVE_UP, degradedMessage: rollout, masterUpdated: 'True' }))).to.equal(undefined);
  });
});
