/**
 * The CVO's Upgradeable rules per release (reference/cvo/upgradeable.ts), case by case: what ClusterVersion says from
 * its operators and its own progress, and which updates the precondition refuses, warns about or lets through.
 */
import { expect } from 'chai';
import { summarizePrecondition, upgradeableConditions, upgradeablePrecondition, withUpgradeableConditions } from '../../reference/cvo/upgradeable.js';
import { MCO_4_19, MCO_4_22, MCO_FIX } from '../../reference/profiles/mco-code.js';
import type { Condition } from '../../reference/mco/types.js';

const MCO_4_12_GA_CVO = MCO_FIX.clusterVersionOperator;
const MCO_4_19_CVO = MCO_4_19.clusterVersionOperator;
const MCO_4_22_CVO = MCO_4_22.clusterVersionOperator;
const notUp = (reason: string, message: string): Condition[] => [{ type: 'Upgradeable', status: 'False', reason, message }];
const progressing = (status: 'True' | 'False'): Condition[] => [{ type: 'Progressing', status, reason: '', message: '' }];

describe('reference CVO: Upgradeable and its precondition per release', () => {
  it('no failing check: no Upgradeable condition at all; one operator: its reason, the release\'s words', () => {
    expect(upgradeableConditions(MCO_4_19_CVO, { operators: [{ name: 'dns', conditions: [] }], clusterVersionConditions: progressing('False') })).to.deep.equal([]);
    const one = { operators: [{ name: 'machine-config', conditions: notUp('DegradedPool', 'pools are degraded') }], clusterVersionConditions: progressing('False') };
    expect(upgradeableConditions(MCO_4_12_GA_CVO, one)).to.deep.equal([
      { type: 'Upgradeable', status: 'False', reason: 'DegradedPool', message: 'Cluster operator machine-config should not be upgraded between minor versions: pools are degraded' },
    ]);
    expect(upgradeableConditions(MCO_4_22_CVO, one)[0]!.message).to.equal('Cluster operator machine-config should not be upgraded between minor or major versions: pools are degraded');
  });

  it('several reasons: each check keeps its type beside Upgradeable MultipleReasons; an update in progress counts from 4.19 only', () => {
    const inputs = {
      operators: [
        { name: 'machine-config', conditions: notUp('DegradedPool', 'm') },
        { name: 'kube-apiserver', conditions: notUp('KubeletMinorVersion_X', 'k') },
      ],
      clusterVersionConditions: progressing('True'),
    };
    expect(upgradeableConditions(MCO_4_12_GA_CVO, inputs)).to.deep.equal([
      {
        type: 'Upgradeable',
        status: 'False',
        reason: 'ClusterOperatorsNotUpgradeable',
        message: 'Multiple cluster operators should not be upgraded between minor versions:\n* Cluster operator kube-apiserver should not be upgraded between minor versions: KubeletMinorVersion_X: k\n* Cluster operator machine-config should not be upgraded between minor versions: DegradedPool: m',
      },
    ]);
    const modern = upgradeableConditions(MCO_4_19_CVO, inputs);
    expect(modern.map((c) => `${c.type}|${c.reason}`)).to.deep.equal(['Upgradeable|MultipleReasons', 'UpgradeableClusterOperators|ClusterOperatorsNotUpgradeable', 'UpgradeableUpgradeInProgress|UpdateInProgress']);
    expect(modern[0]!.message).to.match(/^Cluster should not be upgraded between minor versions for multiple reasons: ClusterOperatorsNotUpgradeable,UpdateInProgress\n\* Multiple cluster operators/);
  });

  it('ClusterVersion keeps a transition time while the Upgradeable conditions stay, and loses them when all checks pass', () => {
    const first = withUpgradeableConditions(progressing('False'), notUp('A', 'a'), 't1');
    expect(withUpgradeableConditions(first, notUp('A', 'a'), 't2').find((c) => c.type === 'Upgradeable')!.lastTransitionTime).to.equal('t1');
    expect(withUpgradeableConditions(first, [], 't3').map((c) => c.type)).to.deep.equal(['Progressing']);
  });

  it('4.12-4.18: a minor digit other than the last completed version\'s is refused; the same minor goes through', () => {
    const cv = { conditions: notUp('DegradedPool', 'm'), desiredVersion: '4.12.0', history: [{ state: 'Completed', version: '4.12.0' }] };
    expect(upgradeablePrecondition(MCO_4_12_GA_CVO, cv, '4.13.0')).to.deep.equal({ reason: 'DegradedPool', message: 'm', warning: false });
    expect(upgradeablePrecondition(MCO_4_12_GA_CVO, cv, '4.12.9')).to.equal(undefined);
    expect(upgradeablePrecondition(MCO_4_12_GA_CVO, { ...cv, conditions: progressing('False') }, '4.13.0')).to.equal(undefined);
  });

  it('4.19+: semver against status.desired; a patch retarget during a minor update is a warning, a downgrade is not this check\'s', () => {
    const during = { conditions: [...notUp('UpdateInProgress', 'u'), ...progressing('True')], desiredVersion: '4.19.0', history: [{ state: 'Partial', version: '4.19.0' }, { state: 'Completed', version: '4.18.0' }] };
    expect(upgradeablePrecondition(MCO_4_19_CVO, during, '4.20.0')).to.deep.equal({ reason: 'UpdateInProgress', message: 'u', warning: false });
    expect(upgradeablePrecondition(MCO_4_19_CVO, during, '4.19.3')).to.deep.equal({
      reason: 'MinorVersionClusterUpdateInProgress',
      message: 'Retarget to 4.19.3 while a minor version update from 4.18.0 to 4.19.0 is in progress',
      warning: true,
    });
    expect(upgradeablePrecondition(MCO_4_19_CVO, during, '4.18.0')).to.equal(undefined);
  });

  it('summarized as the sync worker does: refused unforced, forced through as an accepted risk, a warning always accepted', () => {
    const failure = { reason: 'DegradedPool', message: 'm', warning: false };
    const payload = { version: '4.19.0', image: 'r@sha256:1' };
    expect(summarizePrecondition(failure, false, payload)).to.deep.equal({ blocks: true, message: 'Preconditions failed for payload loaded version="4.19.0" image="r@sha256:1": Precondition "ClusterVersionUpgradeable" failed because of "DegradedPool": m' });
    expect(summarizePrecondition(failure, true, payload)).to.deep.equal({ blocks: false, risk: 'Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "DegradedPool": m' });
    expect(summarizePrecondition({ ...failure, warning: true }, false, payload)).to.deep.equal({ blocks: false, risk: 'Precondition "ClusterVersionUpgradeable" failed because of "DegradedPool": m' });
  });
});
