/**
 * batch/v1 Jobs in the reference (workloads/job-controller.ts) and pods whose containers a registered program plays
 * (kubelet/program-pod.ts), as an on-cluster image build runs: a Job `<name>` whose pod has an init container and a
 * container, restartPolicy Never, backoffLimit 3. Judged through the API and the real `oc` 4.12
 * (../shared/upstream/bin/oc): a missing binary fails these tests; they do not skip.
 */
import { expect } from 'chai';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROGRAM_ANNOTATION, type ContainerRun } from '../../reference/kubelet/pod-programs.js';
import { type Harness, type Obj, cond, startHarness, waitFor } from './support/cluster.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OC = path.resolve(REPO, '..', 'shared', 'upstream', 'bin', 'oc');
const NS = 'ocp-e2e-jobs';
const WAIT_MS = 60_000;
const SUFFIX = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;

async function oc(h: Harness, args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await execa(OC, args, { env: { KUBECONFIG: h.cluster.kubeconfigPath }, reject: false, timeout: 60_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

async function ocOk(h: Harness, args: string[]): Promise<string> {
  const r = await oc(h, args);
  if (r.exitCode !== 0) throw new Error(`oc ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
  return r.stdout;
}

/** A build-like Job: init container `image-build`, container `create-digest-configmap`, played by `program`. */
function buildJob(name: string, program: string): Obj {
  return {
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      backoffLimit: 3, completions: 1, parallelism: 1,
      template: {
        metadata: { annotations: { [PROGRAM_ANNOTATION]: program } },
        spec: {
          restartPolicy: 'Never',
          initContainers: [{ name: 'image-build', image: 'quay.io/buildah/stable:latest' }],
          containers: [{ name: 'create-digest-configmap', image: 'quay.io/openshift/origin-cli:latest' }],
        },
      },
    },
  };
}

/** A gate a program waits on, so a test sees the pod in one state before it moves on; a stopped pod ends the wait. */
function gate(): { wait(signal: AbortSignal): Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  const wait = (signal: AbortSignal): Promise<void> => Promise.race([opened, new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }))]);
  return { wait, open };
}

/** A creation time in ms: client-node gives core kinds' timestamps as Dates, custom ones as strings. */
const created = (o: Obj): number => new Date(o.metadata.creationTimestamp as unknown as string).getTime();

async function podsOf(h: Harness, job: string): Promise<Obj[]> {
  return (await h.k.list<Obj>('Pod', { namespace: NS, labelSelector: `job-name=${job}` })).items
    .sort((a, b) => created(a) - created(b) || a.metadata.name!.localeCompare(b.metadata.name!));
}

function rowOf(table: string, name: string): string[] | undefined {
  return table.trim().split('\n').map((l) => l.trim().split(/\s{2,}/)).find((r) => r[0] === name);
}

describe('reference: batch/v1 Jobs and program pods (issue 44 groundwork)', function () {
  this.timeout(180_000);
  let h: Harness;
  const runs: Array<{ program: string; container: string; init: boolean; node: string }> = [];
  const initGate = gate();
  const mainGate = gate();

  before(async () => {
    if (!existsSync(OC)) throw new Error(`the real oc 4.12 is missing: expected ${OC} (../shared/upstream/bin/oc); this test runs it and does not skip`);
    h = await startHarness({ profile: '4.12-ga' });
    await h.k.apply('Namespace', { metadata: { name: NS } });
    const record = (program: string) => (run: ContainerRun) => { runs.push({ program, container: run.container.name, init: run.init, node: run.node }); };
    h.cluster.programs.register('test-build', async (run) => {
      record('test-build')(run);
      if (run.init) {
        await initGate.wait(run.signal);
        run.write('STEP 1/2: FROM base\nSTEP 2/2: RUN rpm-ostree install tmux\n');
        run.write('COMMIT build-ok');
      } else {
        await mainGate.wait(run.signal);
        run.write(`digest sha256:${'a'.repeat(64)} written to configmap digest-build-ok`);
      }
      return 0;
    });
    h.cluster.programs.register('test-build-fails', async (run) => {
      record('test-build-fails')(run);
      run.write('STEP 1/2: FROM base\nerror: building at STEP "RUN false": exit status 1');
      return 1;
    });
  });
  after(async () => h?.cluster.stop());

  it('a Job whose program exits 0: the pod goes Init:0/1 → Running → Succeeded, the Job Complete; logs through pods/log and `oc logs job/…`', async () => {
    const job = await h.k.create<Obj>('Job', buildJob('build-ok', 'test-build'));
    const initializing = await waitFor('the build pod running its init container', async () => {
      const pod = (await podsOf(h, 'build-ok'))[0];
      return pod?.status?.initContainerStatuses?.[0]?.state?.running ? pod : undefined;
    }, WAIT_MS);
    // the pod as the job controller made it: name, labels, controller reference, a worker (masters are tainted)
    expect(initializing.metadata.name!.slice(0, 'build-ok-'.length)).to.equal('build-ok-');
    expect(initializing.metadata.name!.slice('build-ok-'.length)).to.match(SUFFIX);
    const uid = job.metadata.uid!;
    expect(initializing.metadata.labels).to.include({ 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'build-ok', 'controller-uid': uid, 'job-name': 'build-ok' });
    expect(initializing.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'batch/v1', kind: 'Job', name: 'build-ok', uid, controller: true, blockOwnerDeletion: true }]);
    const node = (await h.k.get<Obj>('Node', initializing.spec.nodeName))!;
    expect(Object.keys(node.metadata.labels ?? {})).to.include('node-role.kubernetes.io/worker').and.not.include('node-role.kubernetes.io/master');
    expect(initializing.status.phase).to.equal('Pending');
    expect(cond(initializing, 'Initialized')).to.include({ status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [image-build]' });
    expect(initializing.status.containerStatuses[0].state).to.deep.equal({ waiting: { reason: 'PodInitializing' } });
    expect(rowOf(await ocOk(h, ['get', 'pods', '-n', NS]), initializing.metadata.name!)?.slice(1, 3)).to.deep.equal(['0/1', 'Init:0/1']);
    const started = (await h.k.get<Obj>('Job', 'build-ok', NS))!;
    expect(started.status).to.include({ active: 1 });
    expect(started.status.startTime).to.be.a('string');
    expect(rowOf(await ocOk(h, ['get', 'jobs', '-n', NS]), 'build-ok')?.slice(1, 3)).to.deep.equal(['Running', '0/1']);

    initGate.open();
    const running = await waitFor('the pod Running its container', async () => {
      const pod = (await podsOf(h, 'build-ok'))[0];
      return pod?.status?.phase === 'Running' ? pod : undefined;
    }, WAIT_MS);
    expect(running.status.initContainerStatuses[0].state.terminated).to.include({ exitCode: 0, reason: 'Completed' });
    expect(cond(running, 'Ready').status).to.equal('True');
    await waitFor('the Job counting its ready pod', async () => (await h.k.get<Obj>('Job', 'build-ok', NS))?.status?.ready === 1, WAIT_MS);

    mainGate.open();
    const done = await waitFor('the Job Complete', async () => {
      const j = await h.k.get<Obj>('Job', 'build-ok', NS);
      return cond(j, 'Complete').status === 'True' ? j : undefined;
    }, WAIT_MS, async () => JSON.stringify((await podsOf(h, 'build-ok')).map((p) => p.status)));
    expect(done.status).to.include({ succeeded: 1 });
    expect(done.status.active).to.equal(undefined);
    expect(done.status.failed).to.equal(undefined);
    expect(Date.parse(done.status.completionTime)).to.be.at.least(Date.parse(done.status.startTime));
    expect(done.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason])).to.deep.equal([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
      ['Complete', 'True', 'CompletionsReached'],
    ]);
    const pods = await podsOf(h, 'build-ok');
    expect(pods).to.have.length(1);
    const pod = pods[0]!;
    expect(pod.status.phase).to.equal('Succeeded');
    expect(pod.status.containerStatuses[0].state.terminated).to.include({ exitCode: 0, reason: 'Completed' });
    expect(runs.filter((r) => r.program === 'test-build').map((r) => [r.container, r.init, r.node])).to.deep.equal([
      ['image-build', true, pod.spec.nodeName],
      ['create-digest-configmap', false, pod.spec.nodeName],
    ]);

    const name = pod.metadata.name!;
    const initLog = await ocOk(h, ['get', '--raw', `/api/v1/namespaces/${NS}/pods/${name}/log?container=image-build`]);
    // line by line as the program wrote it (execa drops the last newline)
    expect(initLog).to.equal('STEP 1/2: FROM base\nSTEP 2/2: RUN rpm-ostree install tmux\nCOMMIT build-ok');
    expect(await ocOk(h, ['logs', 'job/build-ok', '-n', NS])).to.equal(`digest sha256:${'a'.repeat(64)} written to configmap digest-build-ok`);
    expect(await ocOk(h, ['logs', 'job/build-ok', '-n', NS, '-c', 'image-build'])).to.include('STEP 2/2: RUN rpm-ostree install tmux').and.include('COMMIT build-ok');

    const table = await ocOk(h, ['get', 'jobs', '-n', NS]);
    expect(table.split('\n')[0]!.trim().split(/\s{2,}/)).to.deep.equal(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(rowOf(table, 'build-ok')?.slice(1, 3)).to.deep.equal(['Complete', '1/1']);
    expect(rowOf(await ocOk(h, ['get', 'pods', '-n', NS]), name)?.slice(1, 3)).to.deep.equal(['0/1', 'Completed']);
  });

  it('an init container failing every time with backoffLimit 3: four pods Failed (Init:Error) after 10 s, 20 s, 40 s of back-off, the Job Failed BackoffLimitExceeded', async () => {
    await h.k.create<Obj>('Job', buildJob('build-fails', 'test-build-fails'));
    const failed = await waitFor('the Job Failed', async () => {
      const j = await h.k.get<Obj>('Job', 'build-fails', NS);
      return cond(j, 'Failed').status === 'True' ? j : undefined;
    }, WAIT_MS, async () => JSON.stringify((await h.k.get<Obj>('Job', 'build-fails', NS))?.status));
    expect(failed.status).to.include({ failed: 4 });
    expect(failed.status.succeeded).to.equal(undefined);
    expect(failed.status.completionTime).to.equal(undefined);
    expect(failed.status.conditions.map((c: { type: string; reason: string; message: string }) => [c.type, c.reason, c.message])).to.deep.equal([
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    const pods = await podsOf(h, 'build-fails');
    expect(pods.map((p) => p.status.phase)).to.deep.equal(['Failed', 'Failed', 'Failed', 'Failed']);
    for (const pod of pods) {
      expect(pod.status.initContainerStatuses[0].state.terminated).to.include({ exitCode: 1, reason: 'Error' });
      expect(pod.status.containerStatuses[0].state).to.deep.equal({ waiting: { reason: 'PodInitializing' } });
    }
    // the container never ran: an init container that fails ends a restartPolicy Never pod
    expect(runs.filter((r) => r.program === 'test-build-fails').map((r) => r.container)).to.deep.equal(Array(4).fill('image-build'));
    // each new pod waited its back-off after the previous pod's end (timestamps are whole seconds)
    const ended = (p: Obj): number => new Date(p.status.initContainerStatuses[0].state.terminated.finishedAt).getTime();
    for (let i = 1; i < pods.length; i++) {
      const gap = created(pods[i]!) - ended(pods[i - 1]!);
      expect(gap, `back-off before pod ${i + 1}`).to.be.at.least(10_000 * 2 ** (i - 1) - 1000);
    }
    const row = rowOf(await ocOk(h, ['get', 'pods', '-n', NS]), pods[0]!.metadata.name!);
    expect(row?.slice(1, 3)).to.deep.equal(['0/1', 'Init:Error']);
    expect(rowOf(await ocOk(h, ['get', 'jobs', '-n', NS]), 'build-fails')?.slice(1, 3)).to.deep.equal(['Failed', '0/1']);
    expect(await ocOk(h, ['logs', 'job/build-fails', '-n', NS, '-c', 'image-build'])).to.include('error: building at STEP "RUN false": exit status 1');
  });

  it('a program nobody registered: the pod waits with CreateContainerError naming it', async () => {
    await h.k.create<Obj>('Job', buildJob('build-unknown', 'no-such-program'));
    const pod = await waitFor('the pod with CreateContainerError', async () => {
      const p = (await podsOf(h, 'build-unknown'))[0];
      return p?.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' ? p : undefined;
    }, WAIT_MS);
    expect(pod.status.phase).to.equal('Pending');
    expect(pod.status.initContainerStatuses[0].state.waiting.message).to.include('"no-such-program"').and.include('test-build, test-build-fails');
    expect(rowOf(await ocOk(h, ['get', 'pods', '-n', NS]), pod.metadata.name!)?.slice(1, 3)).to.deep.equal(['0/1', 'Init:CreateContainerError']);
  });

  it('oc delete job takes the Job\'s pods with it', async () => {
    expect(await podsOf(h, 'build-fails')).to.have.length(4);
    await ocOk(h, ['delete', 'job', 'build-fails', '-n', NS]);
    await waitFor('the Job\'s pods gone', async () => (await podsOf(h, 'build-fails')).length === 0, WAIT_MS);
    expect(await podsOf(h, 'build-ok')).to.have.length(1); // another Job's pod stays
  });
});
