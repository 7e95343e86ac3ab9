/** The report's pure parts: offline post-processing, failure kinds and masking, result enrichment, the timeline. */
import { expect } from 'chai';
import { failureKind, failureSummary, maskVolatile } from '../../helpers/report/failure-kinds.cjs';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enrichResult, phaseOf, stageResults, type TestResult } from '../../helpers/report/enrich.js';
import { makeOffline, remoteReferences, stripAnalytics } from '../../helpers/report/offline.js';
import { environmentOf, toProperties, type RunFacts } from '../../helpers/report/run-facts.js';
import { trimStack } from '../../helpers/report/stack.cjs';
import { bothClocks, inClusterTime, renderTimelineHtml } from '../../helpers/report/timeline-chart.js';
import { buildTimelineModel, parseClusterOffset, statesOf } from '../../helpers/report/timeline-model.js';
import { invariantEvidence } from '../../helpers/report/invariant-steps.js';

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

describe('report: upgrade timeline', () => {
  const t0 = Date.parse('2026-12-01T08:00:00.000Z');
  const at = (clusterSeconds: number) => new Date(t0 + (clusterSeconds * 1000) / 600).toISOString();
  const entry = (s: number, kind: string, name: string, change: string) => ({ at: at(s), clusterTime: `+${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`, kind, name, change });
  const changes = [
    entry(6, 'ClusterVersion', 'version', 'desired=4.12.0 history[0]=Completed 4.12.0 Available=True Failing=False Progressing=False: done'),
    entry(30, 'ClusterVersion', 'version', 'desired=4.12.1 history[0]=Partial 4.12.1 Available=True Failing=False Progressing=True: working'),
    entry(60, 'ClusterOperator', 'machine-config', 'version=4.12.0 Available=True Progressing=True Degraded=True: required pool master is not ready'),
    entry(120, 'MachineConfigPool', 'master', 'target=rendered-master-a Updated=false Updating=true Degraded=false 0/3 updated'),
    entry(600, 'ClusterOperator', 'machine-config', 'version=4.12.0 Available=True Progressing=True Degraded=True: osImageURL mismatch for master'),
    entry(900, 'MachineConfigPool', 'master', 'target=rendered-master-a Updated=true Updating=false Degraded=false 3/3 updated'),
    entry(1200, 'ClusterVersion', 'version', 'desired=4.12.1 history[0]=Completed 4.12.1 Available=True Failing=False Progressing=False: done'),
  ];
  const invariants = [
    { name: 'machine-config ClusterOperator is never Degraded by an osImageURL mismatch', passed: false, detail: `9.0 cluster minutes from ${at(60)}: mismatch` },
    { name: 'the master pool is updated before ClusterVersion reports the new version', passed: true, detail: 'ok' },
  ];

  it('reads the recorded lines into lanes of states', () => {
    expect(parseClusterOffset('+12m30s')).to.equal(750_000);
    expect(statesOf('ClusterOperator', 'machine-config', changes[2]!.change).map((s) => [s.lane, s.tone])).to.deep.equal([
      ['co/machine-config Available', 'ok'],
      ['co/machine-config Progressing', 'busy'],
      ['co/machine-config Degraded', 'bad'],
    ]);
    expect(statesOf('Node', 'n1', 'current=a desired=b state=Working ready=false')[0]).to.include({ tone: 'busy', label: 'Working, not ready, config pending' });
  });

  it('places the request, the completion and the broken invariant where it broke, on the cluster clock', () => {
    const model = buildTimelineModel({ title: 't', timeFactor: 600, changes, invariants });
    expect(model.zeroWallMs).to.be.closeTo(t0, 1);
    expect(model.marks.map((m) => [m.label, m.at])).to.deep.equal([['upgrade requested', 0], ['ClusterVersion Completed 4.12.1', 1_200_000]]);
    expect(model.breaks).to.have.length(1);
    expect(model.breaks[0]).to.include({ at: 600_000, lane: 'co/machine-config Degraded' });
    const pool = model.lanes.find((l) => l.name === 'mcp/master')!;
    expect(pool.segments.map((s) => [s.from, s.to, s.tone])).to.deep.equal([[0, 120_000, 'unknown'], [120_000, 900_000, 'busy'], [900_000, 1_200_000, 'ok']]);
    expect(inClusterTime(model, invariants[0]!.detail)).to.equal('9.0 cluster minutes from +1m00s cluster (08:00:00.1 wall UTC): mismatch');
    expect(bothClocks({ ...model, timeFactor: 1 }, 0)).to.equal('+0s (08:00:00.0 UTC)');
  });

  it('gives each invariant\'s evidence on the cluster clock', () => {
    expect(invariantEvidence(invariants, changes, 600)).to.deep.equal(['9.0 cluster minutes from +1m00s cluster (08:00:00.1 wall UTC): mismatch', 'ok']);
  });

  it('draws a self-contained page: inline SVG, no script, nothing fetched', () => {
    const html = renderTimelineHtml(buildTimelineModel({ title: 'upgrade <timeline>', timeFactor: 600, changes, invariants }));
    expect(html).to.include('data-chart="upgrade-timeline"');
    expect(html).to.include('upgrade &lt;timeline&gt;');
    expect(html).not.to.match(/<script|<link|@import|url\(/i);
    expect(remoteReferences(html)).to.deep.equal([]);
    expect(html.match(/data-invariant=/g)).to.have.length(1);
  });
});
