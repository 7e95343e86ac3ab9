/** The report's pure parts: offline post-processing, failure kinds and masking, result enrichment, the timeline. */
import { expect } from 'chai';
import { failureKind, failureSummary, maskVolatile } from '../../../helpers/report/failure-kinds.cjs';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enrichResult, phaseOf, stageResults, type TestResult } from '../../../helpers/report/enrich.js';
import { makeOffline, remoteReferences, stripAnalytics } from '../../../helpers/report/offline.js';
import { environmentOf, toProperties, type RunFacts } from '../../../helpers/report/run-facts.js';
import { trimStack } from '../../../helpers/report/stack.cjs';
import { bothClocks, inClusterTime, renderTimelineHtml } from '../../../helpers/report/timeline-chart.js';
import { buildTimelineModel } from '../../../helpers/report/timeline-model.js';
import { invariantEvidence, invariantWhy } from '../../../helpers/report/invariant-steps.js';
import { JUDGES, judgeRecording } from '../../../helpers/monitor/judge.js';
import { judgeRecordingFile, keepRecording } from '../../../helpers/monitor/recording-file.js';
import { UpgradeRecorder } from '../../../helpers/monitor/record.js';
import { at, clusterIso, clusterVersion, FakeWatcher, masterPool, MISMATCH, recordUpgrade, renderedConfig, T0, TIME_FACTOR } from './support/recorded-upgrade.js';

const ANALYTICS_PAGE = `<!DOCTYPE html><html><head><script>window.allureReportOptions = {}</script></head><body><div id="app"></div>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());
</script>
<script src="data:text/javascript;base64,${Buffer.from('console.log(1)').toString('base64')}"></script>
</body></html>`;

describe('report: offline page', () => {
  it('removes the analytics tag and its set-up, keeping every other script', () => {
    const page = stripAnalytics(ANALYTICS_PAGE);
    expect(page).not.to.match(/googletagmanager|gtag|dataLayer/);
    expect(page).to.include('window.allureReportOptions');
    expect(page).to.include('data:text/javascript;base64,');
  });

  it('finds what a page would load from other hosts, and refuses such a page', () => {
    expect(remoteReferences(ANALYTICS_PAGE)).to.deep.equal(['https://www.googletagmanager.com/gtag/js?id=G-X']);
    expect(remoteReferences('<link href="//fonts.example/x.css"><img src="./a.png">')).to.deep.equal(['//fonts.example/x.css']);
    const css = Buffer.from('@font-face{src:url(https://fonts.example/f.woff2)}').toString('base64');
    expect(remoteReferences(`<link rel="stylesheet" href="data:text/css;base64,${css}">`)).to.deep.equal(['https://fonts.example/f.woff2']);
    expect(() => makeOffline('<img src="https://example.invalid/x.png">')).to.throw(/would load from other hosts: https:\/\/example.invalid\/x.png/);
    expect(makeOffline(ANALYTICS_PAGE)).not.to.include('googletagmanager');
  });
});

describe('report: failure kinds', () => {
  const deadlock = '[phase upgrade] upgrade the cluster to the next release failed: the upgrade to 4.12.0-0.nightly-2022-09-12-152748 cannot happen: machine-config stays Degraded on its osImageURL check ... osImageURL mismatch for master in rendered-master-058f106baa4d6bef28a3f8ed23183256 expected: 127.0.0.1:33215/openshift-release-dev/ocp-v4.0-art-dev@sha256:c153476a7539f6e70a2c062332aef7ff4d8c6e0de8dc7365839e69bc96654f89 got: 127.0.0.1:33215/ocp-e2e/layered-os@sha256:4cca3a21d6e9bcad6eab9ec11731f18710088d8c55c6834e31738fcf2aaa781d';

  it('names the kind of a failure', () => {
    expect(failureKind(deadlock)?.id).to.equal('upgrade-deadlock');
    expect(failureKind('[phase check] ... node ip-10-0-128-10 booted quay.io/x@sha256:ab (digest sha256:ab) according to annotation, expected y@sha256:cd')?.id).to.equal('node-wrong-image');
    expect(failureKind('[phase check] ... mcp/master rendered config rendered-master-1 has osImageURL a, expected b')?.id).to.equal('rendered-wrong-image');
    expect(failureKind('[phase check] ... MachineConfig 00-master gives master pools a, which is none of the OS images of release r (rhel-coreos-8 b)')?.id).to.equal('template-wrong-image');
    expect(failureKind('invariant broken: the master pool is updated before ClusterVersion reports the new version')?.id).to.equal('invariant-broken');
    expect(failureKind('timed out after 5m waiting for pool worker')?.id).to.equal('timeout');
    expect(failureKind('something else entirely')).to.equal(undefined);
  });

  it('masks what differs between two runs of the same failure', () => {
    const other = deadlock.replace('058f106baa4d6bef28a3f8ed23183256', '758d1e32d521875d0d665d7e73083356').replace(/33215/g, '41813').replace('4cca3a21', 'b09934f4');
    expect(maskVolatile(other)).to.equal(maskVolatile(deadlock));
    expect(maskVolatile(deadlock)).to.include('rendered-master-… expected: <registry>/openshift-release-dev/ocp-v4.0-art-dev@sha256:…');
    expect(failureSummary(deadlock, 60)).to.have.length(60);
  });
});

describe('report: stacks and results', () => {
  const stack = [
    'PhaseError: [phase upgrade] boom',
    '    at evaluate (helpers/wait.ts:130:44)',
    '    at EventEmitter.emit (node:events:536:35)',
    '    at <anonymous> (helpers/cluster.ts:218:25)',
    '    at Interface.<anonymous> (node_modules/@kubernetes/client-node/src/watch.ts:79:25)',
    '    at [_onLine] [as _onLine] (node:internal/readline/interface:419:12)',
  ].join('\n');

  it('keeps the project\'s frames only, without the message', () => {
    expect(trimStack(stack)).to.equal('    at evaluate (helpers/wait.ts:130:44)\n    at <anonymous> (helpers/cluster.ts:218:25)');
  });

  const result: TestResult = {
    status: 'failed',
    statusDetails: { message: '[phase upgrade] upgrade failed: boom rendered-master-058f106baa4d6bef28a3f8ed23183256', trace: stack },
    labels: [{ name: 'package', value: 'ocp-e2e.specs.01-upgrade.spec.ts' }],
    steps: [
      { name: 'prepare: x', status: 'passed', steps: [] },
      { name: 'upgrade: y', status: 'failed', statusDetails: { message: 'same again', trace: stack }, steps: [{ name: 'wait', status: 'failed', statusDetails: { message: 'boom', trace: stack } }] },
      { name: 'invariant: z: BROKEN', status: 'failed', statusDetails: { message: 'invariant broken: z' } },
    ],
  };
  const facts: RunFacts[] = [{ spec: '01-upgrade.spec.ts', target: 'reference', apiUrl: 'https://127.0.0.1:1', profile: '4.12-ga', faults: [], timeFactor: 600, seed: '1', suiteVersion: '0.1.0' }];

  it('labels phase, target, profile and the masked failure, and puts the failure on the innermost failed step only', () => {
    const enriched = enrichResult(result, facts);
    const label = (n: string) => enriched.labels!.filter((l) => l.name === n).map((l) => l.value);
    expect(label('phase')).to.deep.equal(['upgrade']);
    expect(label('target')).to.deep.equal(['reference']);
    expect(label('profile')).to.deep.equal(['4.12-ga']);
    expect(label('failure')).to.deep.equal(['[phase upgrade] upgrade failed: boom rendered-master-…']);
    expect(enriched.statusDetails!.trace).not.to.include('node:');
    expect(enriched.steps![1]!.statusDetails).to.deep.equal({});
    expect(enriched.steps![1]!.steps![0]!.statusDetails).to.deep.equal(enriched.statusDetails);
    expect(enriched.steps![2]!.status, 'a later red step keeps its status').to.equal('failed');
    expect(result.steps![1]!.statusDetails!.message, 'the input is not changed').to.equal('same again');
  });

  it('attaches the parameters whole, since the report cuts long values with "…"', async () => {
    const results = mkdtempSync(join(tmpdir(), 'ocp-e2e-enrich-'));
    const staging = join(mkdtempSync(join(tmpdir(), 'ocp-e2e-staged-')), 'staged');
    const image = `127.0.0.1:5000/ocp/release@sha256:${'ab'.repeat(32)}`;
    writeFileSync(join(results, 'u1-result.json'), JSON.stringify({ ...result, uuid: 'u1', parameters: [{ name: 'upgrade to', value: image }], steps: [{ name: 'prepare: x', parameters: [{ name: 'engine', value: 'Docker' }] }] }));
    expect(await stageResults(results, staging)).to.equal(1);
    const staged = JSON.parse(readFileSync(join(staging, 'u1-result.json'), 'utf8')) as TestResult;
    const attachment = staged.attachments!.find((a) => a.name === 'parameters (whole values)')!;
    expect(readFileSync(join(staging, attachment.source), 'utf8')).to.equal(`upgrade to: ${image}\nengine: Docker\n`);
  });

  it('falls back to the last phase entered when the message names none', () => {
    expect(phaseOf({ steps: [{ name: 'prepare: a' }, { name: 'check: b' }] })).to.equal('check');
  });

  it('writes the environment as properties Allure reads', () => {
    const text = toProperties(environmentOf(facts));
    expect(text).to.include('API\\ URL=https://127.0.0.1:1');
    expect(text).to.include('profile=4.12-ga');
    expect(text).to.include('faults=none');
    expect(text).to.include('time\\ factor=600 cluster s per wall s');
  });
});

describe('report: the upgrade recording, judged and drawn', () => {
  const recording = recordUpgrade();
  const invariants = judgeRecording(recording);
  const byId = (id: string) => invariants.find((i) => i.id === id)!;

  it('records typed intervals per object, on both clocks, each closed when the next one of its stream begins', () => {
    expect(recording).to.include({ format: 1, timeFactor: 600, startedAt: at(0).toISOString(), stoppedAt: at(1200).toISOString() });
    const degraded = recording.timeline.filter((i) => i.locator === 'ClusterOperator/machine-config' && i.condition === 'Degraded');
    expect(degraded.map((i) => [i.value, i.reason, i.from.cluster, i.to?.cluster])).to.deep.equal([
      ['False', undefined, '+0m00s', '+1m00s'],
      ['True', 'RequiredPoolsFailed', '+1m00s', '+10m00s'],
      ['True', 'RequiredPoolsFailed', '+10m00s', '+18m30s'],
      ['False', undefined, '+18m30s', undefined],
    ]);
    expect(degraded[0]!.found, 'what the recording began with is marked found').to.equal(true);
    expect(degraded[1]!.from.wall).to.equal(at(60).toISOString());
    const target = recording.timeline.filter((i) => i.locator === 'MachineConfigPool/master' && i.condition === 'targetConfig');
    expect(target.map((i) => [i.value, i.fields?.renderedFor])).to.deep.equal([['rendered-master-a', '4.12.0'], ['rendered-master-b', '4.12.1']]);
    const history = recording.timeline.filter((i) => i.locator === 'ClusterVersion/version' && i.condition === 'history');
    expect(history.map((i) => [i.value, i.fields?.version])).to.deep.equal([['Completed', '4.12.0'], ['Partial', '4.12.1'], ['Completed', '4.12.1']]);
    expect(new Set(recording.timeline.map((i) => i.locator))).to.deep.equal(new Set(['ClusterVersion/version', 'ClusterOperator/machine-config', 'MachineConfigPool/master', 'Node/m0', 'Node/w0']));
    expect(JSON.parse(JSON.stringify(recording)), 'plain JSON').to.deep.equal(recording);
  });

  it('Upgradeable=False PoolUpdating is judged by the release upgraded to: broken on 4.19, not judged on 4.12', () => {
    const said = { locator: 'ClusterOperator/machine-config', kind: 'ClusterOperator', name: 'machine-config', condition: 'Upgradeable', value: 'False', reason: 'PoolUpdating', message: 'One or more machine config pools are updating', from: recording.timeline[0]!.from } as (typeof recording.timeline)[number];
    const judge = (version: string) => judgeRecording({ ...recording, target: { ...recording.target, version }, timeline: [...recording.timeline, said] }).find((i) => i.id === 'mco-upgradeable-not-blocked-by-updating-pools')!;
    expect(judge('4.19.0')).to.include({ ok: false });
    expect(judge('4.19.0').why).to.match(/^machine-config said Upgradeable=False PoolUpdating \(One or more machine config pools are updating\) from .* during the upgrade to 4\.19\.0; OpenShift 4\.19 dropped that reason/);
    expect(judge('4.19.0').evidence).to.deep.equal([said]);
    expect(judge('4.12.1')).to.include({ ok: true, why: 'not judged: OpenShift 4.12 may say so (1 such interval(s))' });
    expect(judgeRecording({ ...recording, target: { ...recording.target, version: '4.19.0' } }).find((i) => i.id === 'mco-upgradeable-not-blocked-by-updating-pools')).to.include({ ok: true, why: 'never said' });
  });

  it('judges each invariant once over the intervals, with the intervals that decided as evidence', () => {
    expect(invariants.map((i) => [i.id, i.ok])).to.deep.equal([
      ['mco-never-degraded-by-osimageurl-mismatch', false],
      ['mco-not-degraded-at-end', true],
      ['master-updated-before-completion', true],
      ['mco-upgradeable-not-blocked-by-updating-pools', true],
    ]);
    expect(invariants.map((i) => i.title)).to.deep.equal(JUDGES.map((j) => j.title));
    const mismatch = byId('mco-never-degraded-by-osimageurl-mismatch');
    expect(mismatch.evidence.map((i) => [i.locator, i.condition, i.from.cluster])).to.deep.equal([['ClusterOperator/machine-config', 'Degraded', '+10m00s']]);
    expect(invariantWhy(recording, mismatch)).to.equal(`17.5 cluster minutes from +1m00s cluster (08:00:00.1 wall UTC): RequiredPoolsFailed ${MISMATCH}`);
    expect(byId('mco-not-degraded-at-end').why).to.match(/^recovered from: 17\.5 cluster minutes from /);
    expect(byId('master-updated-before-completion').why).to.equal(
      'when ClusterVersion reported Completed, master was: target=rendered-master-b Updated=true Updating=false Degraded=false 3/3 updated, rolled out rendered-master-b, target rendered for 4.12.1',
    );
  });

  it('catches ClusterVersion completing while the master pool still rolls, at the moment its Completed interval began', () => {
    const early = recordUpgrade({ completesEarly: true });
    const verdict = judgeRecording(early).find((i) => i.id === 'master-updated-before-completion')!;
    expect(verdict.ok).to.equal(false);
    expect(verdict.why).to.match(/^when ClusterVersion reported Completed, master was: target=rendered-master-b Updated=false Updating=true Degraded=false 0\/3 updated, rolled out rendered-master-a, target rendered for 4\.12\.1$/);
    expect(verdict.evidence[0]).to.include({ locator: 'ClusterVersion/version', condition: 'history', value: 'Completed' });
    expect(verdict.evidence[0]!.from.cluster).to.equal('+8m30s');
    expect(verdict.evidence.slice(1).every((i) => i.locator === 'MachineConfigPool/master')).to.equal(true);
    const model = buildTimelineModel({ title: 't', recording: early, invariants: judgeRecording(early) });
    expect(model.breaks.find((b) => b.id === 'master-updated-before-completion')).to.include({ at: 510_000, lane: 'mcp/master' });
    // Without the completion at all, the invariant cannot hold.
    const never = recordUpgrade({ completesEarly: false, stopAt: 1200 });
    never.timeline = never.timeline.filter((i) => !(i.condition === 'history' && i.value === 'Completed' && i.fields?.version === '4.12.1'));
    expect(judgeRecording(never).find((i) => i.id === 'master-updated-before-completion')).to.include({ ok: false, why: 'ClusterVersion never reported the new version as Completed while monitored' });
  });

  it('takes a target config the controller stamps for the new release in place, seen after Completed, as that release\'s; not without the stamp', () => {
    const judged = (restamp: boolean) => {
      const w = new FakeWatcher();
      w.set('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Partial', version: '4.12.1', progressing: true }));
      w.set('MachineConfig', renderedConfig('rendered-master-a', '4.12.0'));
      w.set('MachineConfigPool', masterPool({ target: 'rendered-master-a', rolledOut: 'rendered-master-a', updated: 3 }));
      const recorder = new UpgradeRecorder(w, { timeFactor: TIME_FACTOR }, { image: 'r/ocp/release:4.12.1', version: '4.12.1' }, { now: () => at(0) });
      w.change('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Completed', version: '4.12.1', progressing: false }), at(600));
      // the same config (same name, same content) stamped for 4.12.1; its watch event arrives after ClusterVersion's
      if (restamp) w.change('MachineConfig', renderedConfig('rendered-master-a', '4.12.1'), at(601));
      return judgeRecording(recorder.stop(at(700))).find((i) => i.id === 'master-updated-before-completion')!;
    };
    const restamped = judged(true);
    expect(restamped.ok, restamped.why).to.equal(true);
    expect(restamped.why).to.match(/target rendered for 4\.12\.0 \(stamped for 4\.12\.1 in place, as the recording shows later\)$/);
    const old = judged(false);
    expect(old.ok, 'a target rendered for the old release and never stamped for the new one breaks it').to.equal(false);
    expect(old.why).to.match(/target rendered for 4\.12\.0$/);
  });

  it('orders the master rollout against Completed by the cluster\'s timestamps when the pool\'s watch delivers late, and still catches a rollout after the completion', () => {
    // master rolls out at cluster second `rolledOutAt`; its watch delivers that at second 1250, after ClusterVersion's
    // Completed (completionTime second 1200) arrived at 1200
    const judged = (rolledOutAt: number) => {
      const w = new FakeWatcher();
      w.set('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Partial', version: '4.12.1', progressing: true }));
      w.set('MachineConfig', renderedConfig('rendered-master-a', '4.12.0'));
      w.set('MachineConfig', renderedConfig('rendered-master-b', '4.12.1'));
      w.set('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-a', updated: 2, updatedAt: clusterIso(100) }));
      const recorder = new UpgradeRecorder(w, { timeFactor: TIME_FACTOR }, { image: 'r/ocp/release:4.12.1', version: '4.12.1' }, { now: () => at(0) });
      w.change('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Completed', version: '4.12.1', progressing: false, completedAt: clusterIso(1200) }), at(1200));
      w.change('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-b', updated: 3, updatedAt: clusterIso(rolledOutAt) }), at(1250));
      return judgeRecording(recorder.stop(at(1300))).find((i) => i.id === 'master-updated-before-completion')!;
    };
    const delivered = judged(900);
    expect(delivered.ok, delivered.why).to.equal(true);
    expect(delivered.why).to.match(/^when ClusterVersion reported Completed, master was: .* 2\/3 updated, .*; but its Updated condition changed at 2026-12-01T08:15:00\.000Z by the cluster's clock, not after ClusterVersion's completionTime 2026-12-01T08:20:00\.000Z \(its watch delivered the rollout later\)$/);
    expect(delivered.evidence.slice(1).some((i) => i.condition === 'Updated' && i.fields?.changedAt === clusterIso(900))).to.equal(true);
    const after = judged(1230);
    expect(after.ok, 'a master pool that rolled out after the completion breaks it, whenever its watch delivers').to.equal(false);
    expect(after.why).to.match(/^when ClusterVersion reported Completed, master was: .* 2\/3 updated, rolled out rendered-master-a, target rendered for 4\.12\.1$/);
  });

  it('judges an upgrade that was over before the recording began (--phase post) on the pool as found then', () => {
    const w = new FakeWatcher();
    w.set('ClusterVersion', clusterVersion({ desired: '4.12.1', head: 'Completed', version: '4.12.1', progressing: false }));
    w.set('MachineConfig', renderedConfig('rendered-master-b', '4.12.1'));
    w.set('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-b', updated: 3 }));
    const found = new UpgradeRecorder(w, { timeFactor: TIME_FACTOR }, { image: 'r/ocp/release:4.12.1' }, { now: () => at(0) }).stop(at(60));
    const verdict = judgeRecording(found).find((i) => i.id === 'master-updated-before-completion')!;
    expect(verdict).to.include({ ok: true });
    expect(verdict.why).to.match(/master was: target=rendered-master-b Updated=true .*3\/3 updated.* \(the upgrade had completed before monitoring began: the pool as found then\)$/);
    // the same pool still rolling fails it
    w.set('MachineConfigPool', masterPool({ target: 'rendered-master-b', rolledOut: 'rendered-master-a', updated: 1 }));
    const rolling = new UpgradeRecorder(w, { timeFactor: TIME_FACTOR }, { image: 'r/ocp/release:4.12.1' }, { now: () => at(0) }).stop(at(60));
    expect(judgeRecording(rolling).find((i) => i.id === 'master-updated-before-completion')).to.include({ ok: false });
  });

  it('draws lanes from the intervals and places the broken invariant by its id where its evidence began', () => {
    const model = buildTimelineModel({ title: 't', recording, invariants });
    expect(model.zeroWallMs).to.equal(T0);
    expect(model.end).to.equal(1_200_000);
    expect(model.marks.map((m) => [m.label, m.at])).to.deep.equal([['upgrade requested', 0], ['ClusterVersion Completed 4.12.1', 1_200_000]]);
    expect(model.breaks.map((b) => [b.id, b.at, b.lane])).to.deep.equal([['mco-never-degraded-by-osimageurl-mismatch', 600_000, 'co/machine-config Degraded']]);
    const lane = (name: string) => model.lanes.find((l) => l.name === name)!.segments.map((s) => [s.from, s.to, s.label, s.tone]);
    expect(lane('mcp/master')).to.deep.equal([[0, 120_000, 'Updated 3/3', 'ok'], [120_000, 900_000, 'Updating 0/3', 'busy'], [900_000, 1_200_000, 'Updated 3/3', 'ok']]);
    expect(lane('co/machine-config Degraded').map((s) => s.slice(0, 2).concat(s[3]!))).to.deep.equal([[0, 60_000, 'ok'], [60_000, 600_000, 'bad'], [600_000, 1_110_000, 'bad'], [1_110_000, 1_200_000, 'ok']]);
    expect(lane('node/m0')).to.deep.equal([[0, 120_000, 'Done', 'ok'], [120_000, 420_000, 'Working, config pending', 'busy'], [420_000, 1_200_000, 'Done, not ready', 'busy']]);
    expect(lane('node/w0')[0], 'a node first seen later').to.deep.equal([0, 300_000, 'not seen changing yet', 'unknown']);
    expect(lane('clusterversion').map((s) => s[2])).to.deep.equal(['Completed 4.12.0', 'Partial 4.12.1', 'Completed 4.12.1']);
    expect(model.lanes.map((l) => l.group)).to.deep.equal(['ClusterVersion', 'ClusterOperator', 'ClusterOperator', 'ClusterOperator', 'MachineConfigPool', 'Node', 'Node']);
    expect(inClusterTime(model, at(60).toISOString())).to.equal('+1m00s cluster (08:00:00.1 wall UTC)');
    expect(bothClocks({ ...model, timeFactor: 1 }, 0)).to.equal('+0s (08:00:00.0 UTC)');
  });

  it('gives each invariant\'s evidence on the cluster clock, naming the intervals that decided', () => {
    const text = invariantEvidence(recording, byId('mco-never-degraded-by-osimageurl-mismatch'));
    expect(text.split('\n')[0]).to.equal(invariantWhy(recording, byId('mco-never-degraded-by-osimageurl-mismatch')));
    expect(text).to.include('decided by:\n- ClusterOperator/machine-config Degraded=True (RequiredPoolsFailed): Unable to apply 4.12.1');
    expect(text).to.include('+10m00s cluster (08:00:01.0 wall UTC) → +18m30s cluster (08:00:01.8 wall UTC)');
    expect(text).not.to.match(/\d{4}-\d{2}-\d{2}T/);
  });

  it('draws a self-contained page: inline SVG, no script, nothing fetched, the broken invariant marked with its id', () => {
    const html = renderTimelineHtml(buildTimelineModel({ title: 'upgrade <timeline>', recording, invariants }));
    expect(html).to.include('data-chart="upgrade-timeline"');
    expect(html).to.include('upgrade &lt;timeline&gt;');
    expect(html).not.to.match(/<script|<link|@import|url\(/i);
    expect(remoteReferences(html)).to.deep.equal([]);
    expect(html.match(/data-invariant-id="([^"]+)"/g)).to.deep.equal(['data-invariant-id="mco-never-degraded-by-osimageurl-mismatch"']);
  });
});

describe('report: a recording written to the reports folder is judged again from the file', () => {
  it('writes it as JSON and judges the file as the run did', async () => {
    const recording = recordUpgrade({ completesEarly: true });
    const reportsDir = mkdtempSync(join(tmpdir(), 'ocp-e2e-recording-'));
    const path = await keepRecording(reportsDir, recording);
    expect(path).to.equal(join(reportsDir, 'recordings', 'upgrade-to-4.12.1-20261201T080000Z.json'));
    const again = await judgeRecordingFile(path!);
    expect(again).to.deep.equal(judgeRecording(recording));
    expect(again.filter((i) => !i.ok).map((i) => i.id)).to.deep.equal(['mco-never-degraded-by-osimageurl-mismatch', 'master-updated-before-completion']);
  });

  it('refuses a file that is not a recording of this format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-recording-'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ timeFactor: 600, timeline: [], degradedPeriods: [] }));
    writeFileSync(join(dir, 'text.json'), 'ClusterOperator/machine-config Degraded=True');
    const refusal = (name: string) => judgeRecordingFile(join(dir, name)).then(() => 'judged', (e: Error) => e.message);
    expect(await refusal('old.json')).to.match(/old\.json is a recording of format undefined; this suite reads format 1/);
    expect(await refusal('text.json')).to.match(/text\.json is not JSON/);
  });
});
