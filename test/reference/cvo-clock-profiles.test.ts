import { expect } from 'chai';
import { ClusterClock } from '../../reference/clock.js';
import { NO_DEVIATIONS, resolveFaults } from '../../reference/faults.js';
import { getProfile } from '../../reference/profiles.js';
import { createRng, rngFor } from '../../reference/rng.js';
import {
  checkOperatorHealth,
  completeHistoryHead,
  completedConditions,
  lastCompletedVersion,
  reconcilingConditions,
  startHistoryEntry,
  updatingConditions,
} from '../../reference/cvo/status.js';

const OLD = '4.12.0-0.nightly-2022-09-08-002336';
const NEW = '4.12.0-0.nightly-2022-09-12-152748';
const T0 = '2022-09-12T10:00:00Z';
const T1 = '2022-09-12T11:00:00Z';

describe('reference CVO: history and conditions (spec §6)', () => {
  it('prepends Partial, closes the previous head, completes in place; VERSION is the newest Completed', () => {
    const installed = completeHistoryHead(startHistoryEntry([], { version: OLD, image: 'r:old', verified: false }, T0), T0);
    const updating = startHistoryEntry(installed, { version: NEW, image: 'r:new', verified: false, acceptedRisks: 'forced' }, T1);
    expect(updating[0]).to.include({ state: 'Partial', version: NEW, startedTime: T1, completionTime: null, acceptedRisks: 'forced' });
    expect(updating[1]).to.include({ state: 'Completed', completionTime: T0 });
    expect(lastCompletedVersion(updating)).to.equal(OLD);
    expect(lastCompletedVersion(completeHistoryHead(updating, T1))).to.equal(NEW);
  });
  it('checks Available, then Degraded, then versions', () => {
    const co = (available: string, degraded: string, version: string) => ({
      name: 'machine-config',
      conditions: [{ type: 'Available', status: available }, { type: 'Degraded', status: degraded }],
      versions: [{ name: 'operator', version }],
    });
    expect(checkOperatorHealth(co('False', 'True', OLD), 'machine-config', NEW).kind).to.equal('ClusterOperatorNotAvailable');
    expect(checkOperatorHealth(co('True', 'True', NEW), 'machine-config', NEW)).to.deep.equal({ kind: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded' });
    expect(checkOperatorHealth(co('True', 'False', OLD), 'machine-config', NEW).kind).to.equal('ClusterOperatorUpdating');
    expect(checkOperatorHealth(co('True', 'False', NEW), 'machine-config', NEW).kind).to.equal('ok');
  });
  it('the 40-minute rule turns a degraded wait into Failing=True with the report text', () => {
    const health = { kind: 'ClusterOperatorDegraded' as const, message: 'Cluster operator machine-config is degraded' };
    const base = { conditions: [], version: NEW, health, operatorName: 'machine-config', progress: { done: 612, total: 807 }, now: T0 };
    const early = updatingConditions({ ...base, waitedMs: 39 * 60_000 });
    expect(early.find((c) => c.type === 'Progressing')!.message).to.equal(`Working towards ${NEW}: 612 of 807 done (76% complete), waiting up to 40 minutes on machine-config`);
    expect(early.find((c) => c.type === 'Failing')!.status).to.equal('False');
    const late = updatingConditions({ ...base, waitedMs: 40 * 60_000 });
    expect(late.find((c) => c.type === 'Progressing')).to.include({ status: 'True', reason: 'ClusterOperatorDegraded', message: `Unable to apply ${NEW}: wait has exceeded 40 minutes for these operators: machine-config` });
    expect(late.find((c) => c.type === 'Failing')).to.include({ status: 'True', reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded' });
  });
  it('completion and reconciling texts', () => {
    const done = completedConditions([], NEW, T0);
    expect(done.find((c) => c.type === 'Available')!.message).to.equal(`Done applying ${NEW}`);
    expect(done.find((c) => c.type === 'Progressing')).to.include({ status: 'False', message: `Cluster version is ${NEW}` });
    const degraded = reconcilingConditions(done, OLD, { kind: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded' }, 'machine-config', T0);
    expect(degraded.find((c) => c.type === 'Progressing')!.message).to.equal(`Error while reconciling ${OLD}: the cluster operator machine-config is degraded`);
    expect(degraded.find((c) => c.type === 'Failing')!.status).to.equal('True');
  });
});

describe('reference clock, rng, profiles, faults', () => {
  it('cluster time runs factor times faster than wall time, polls have a wall floor', () => {
    let wall = 1_000_000;
    const clock = new ClusterClock({ factor: 600, start: new Date('2022-09-12T00:00:00Z'), wallNow: () => wall });
    wall += 1000;
    expect(clock.timestamp()).to.equal('2022-09-12T00:10:00Z');
    expect(clock.toWallMs(600_000)).to.equal(1000);
    expect(clock.pollWallMs(1000)).to.equal(25);
    expect(() => new ClusterClock({ factor: 0 })).to.throw(/positive/);
  });
  it('the same seed gives the same draws; subjects get independent streams', () => {
    const a = createRng(42);
    const b = createRng(42);
    expect([a.next(), a.next(), a.int(10, 20)]).to.deep.equal([b.next(), b.next(), b.int(10, 20)]);
    expect(rngFor(1, 'node-a').next()).to.not.equal(rngFor(1, 'node-b').next());
  });
  it('profiles differ by data and switches only', () => {
    const ga = getProfile('4.12-ga');
    const bug = getProfile('4.12-nightly-2022-09-08');
    expect(getProfile(undefined).name).to.equal('4.12-ga');
    expect(ga.operator.configMapKeys.baseOSContainerImage).to.equal('baseOSContainerImage');
    expect(bug.operator.configMapKeys.baseOSContainerImage).to.equal('baseOperatingSystemContainer');
    expect([ga.render.annotateOverriddenOsImage, bug.render.annotateOverriddenOsImage]).to.deep.equal([true, false]);
    expect(() => getProfile('4.13')).to.throw('unknown profile "4.13"; valid profiles: 4.12-ga, 4.12-nightly-2022-09-08');
  });
  it('an unknown fault lists the valid ones', () => {
    expect(resolveFaults(['sticky-override']).deviations.renderKeepsCurrentOsImage).to.equal(true);
    expect(() => resolveFaults(['nope'])).to.throw(/unknown fault "nope"; valid faults:\n  keep-old-os-on-upgrade: /);
  });
  it('a fault switches on its deviations only; faults combine', () => {
    expect(resolveFaults([]).deviations).to.deep.equal(NO_DEVIATIONS);
    const { names, deviations } = resolveFaults(['cvo-completes-early', 'mcd-skips-os-update', 'cvo-completes-early']);
    expect(names).to.deep.equal(['cvo-completes-early', 'mcd-skips-os-update']);
    const on = Object.entries(deviations).filter(([, v]) => v).map(([k]) => k);
    expect(on).to.have.members(['operatorReportsVersionEarly', 'cvoTrustsVersionAlone', 'daemonSkipsRebase']);
  });
});
