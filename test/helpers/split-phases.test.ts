import { expect } from 'chai';
import { CHECKPOINT_FORMAT, checkpointName, type Checkpoint } from '../../helpers/checkpoint/format.js';
import { phaseStartProblem, type PhaseStart } from '../../helpers/checkpoint/validate.js';
import { decodePrepared, encodePrepared, phaseTitle } from '../../helpers/split-phases.js';
import type { ClusterVersion } from '../../helpers/types.js';

const TITLE = 'Author:ocp-e2e-NonPreRelease-Longduration-High-54183-[Serial][Disruptive] upgrade with custom osImage';
const FROM = { version: '4.12.0-a', image: 'r/ocp/release:4.12.0-a' };
const checkpoint: Checkpoint = {
  format: CHECKPOINT_FORMAT,
  suiteVersion: '0.1.0',
  clusterId: 'c-1',
  apiUrl: 'https://127.0.0.1:1',
  specFile: '01-x.spec.ts',
  title: TITLE,
  runId: 'r1',
  createdAt: '2026-12-01T00:00:00Z',
  from: FROM,
  prepared: {},
  pending: [{ id: 0, changes: [{ kind: 'MachineConfig', name: 'tc-1-worker', pool: 'worker' }] }],
};
const cv = (desiredImage: string, requested?: string): ClusterVersion =>
  ({ metadata: { name: 'version' }, spec: { clusterID: 'c-1', ...(requested ? { desiredUpdate: { image: requested } } : {}) }, status: { desired: { image: desiredImage, version: '' } } }) as ClusterVersion;
const start = (over: Partial<PhaseStart>): PhaseStart => ({ phase: 'post', specFile: '01-x.spec.ts', checkpoint, suiteVersion: '0.1.0', clusterVersion: cv('r/ocp/release:4.12.0-b'), ...over });

describe('helpers: an upgrade spec split over processes (--phase)', () => {
  it("titles carry QE's PreChkUpgrade / PstChkUpgrade marker after NonPreRelease-, and --phase all keeps the title", () => {
    expect(phaseTitle(TITLE, 'pre')).to.equal('Author:ocp-e2e-NonPreRelease-PreChkUpgrade-Longduration-High-54183-[Serial][Disruptive] upgrade with custom osImage');
    expect(phaseTitle(TITLE, 'post')).to.equal('Author:ocp-e2e-NonPreRelease-PstChkUpgrade-Longduration-High-54183-[Serial][Disruptive] upgrade with custom osImage');
    expect(phaseTitle(TITLE, 'all')).to.equal(TITLE);
    expect(phaseTitle('plain', 'pre')).to.equal('PreChkUpgrade-plain');
  });

  it('the prepare value crosses as JSON, handles as references bound again on the other side', () => {
    const overrides = [{ name: 'tc-1-worker', role: 'worker', osImageURL: 'r/l@sha256:1' }];
    const handle = { toJSON: () => ({ $poolOverride: 0, overrides }) };
    const encoded = encodePrepared({ from: '4.12.0-a', override: handle, images: [{ digest: 'sha256:1' }] });
    expect(encoded).to.deep.equal({ from: '4.12.0-a', override: { $poolOverride: 0, overrides }, images: [{ digest: 'sha256:1' }] });
    const bound = { bound: true };
    expect(decodePrepared(encoded, (ref) => (ref.$poolOverride === 0 ? bound : undefined))).to.deep.equal({ from: '4.12.0-a', override: bound, images: [{ digest: 'sha256:1' }] });
  });

  it('names one ConfigMap per spec file', () => {
    expect(checkpointName('/x/specs/01-upgrade-custom-os-image-both-pools.spec.ts')).to.equal('ocp-e2e-checkpoint-01-upgrade-custom-os-image-both-pools');
  });

  it('each wrong order or foreign checkpoint is one message; the right ones start', () => {
    expect(phaseStartProblem(start({ phase: 'pre', checkpoint: undefined }))).to.equal(undefined);
    expect(phaseStartProblem(start({ phase: 'pre' }))).to.match(/--phase pre already ran on this cluster .*throw it away by hand: oc delete machineconfig tc-1-worker && oc delete configmap\/ocp-e2e-checkpoint-01-x -n ocp-e2e$/);
    expect(phaseStartProblem(start({ phase: 'pre', checkpoint: { ...checkpoint, pending: [] } })), 'nothing pending: only the checkpoint to delete').to.match(/throw it away by hand: oc delete configmap\/ocp-e2e-checkpoint-01-x -n ocp-e2e$/);
    expect(phaseStartProblem(start({ checkpoint: undefined }))).to.match(/not prepared: no checkpoint on this cluster .*run --phase pre first/);
    expect(phaseStartProblem(start({ suiteVersion: '0.2.0' }))).to.match(/written by ocp-e2e 0\.1\.0 .* this is ocp-e2e 0\.2\.0/);
    expect(phaseStartProblem(start({ checkpoint: { ...checkpoint, format: 99 } }))).to.match(/checkpoint format 99/);
    expect(phaseStartProblem(start({ clusterVersion: { ...cv('r/ocp/release:4.12.0-b'), spec: { clusterID: 'c-2' } } }))).to.match(/comes from another cluster \(clusterID c-1 .*this cluster is c-2/);
    expect(phaseStartProblem(start({ clusterVersion: cv(FROM.image) }))).to.match(/the cluster was not upgraded after --phase pre: it still runs 4\.12\.0-a/);
    expect(phaseStartProblem(start({ clusterVersion: cv(FROM.image, 'r/ocp/release:4.12.0-b') })), 'an upgrade requested and under way').to.equal(undefined);
    expect(phaseStartProblem(start({}))).to.equal(undefined);
    expect(phaseStartProblem(start({ phase: 'upgrade', clusterVersion: cv(FROM.image) }))).to.equal(undefined);
    expect(phaseStartProblem(start({ phase: 'upgrade' }))).to.match(/already upgraded after --phase pre .*go on with --phase post/);
    // the start checks never read the recording
    const recording = {} as NonNullable<Checkpoint['upgrade']>['recording'];
    const upgraded: Checkpoint = { ...checkpoint, upgrade: { from: FROM.version, version: '4.12.0-b', image: 'r/ocp/release:4.12.0-b', finishedAt: '', recording } };
    expect(phaseStartProblem(start({ phase: 'upgrade', checkpoint: upgraded, clusterVersion: cv(FROM.image) }))).to.match(/already upgraded/);
  });
});
