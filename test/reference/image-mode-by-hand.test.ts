/**
 * On-cluster image mode by hand, as issue 44's acceptance asks, with the real `oc` against `cluster up --profile
 * 4.20-to-4.21`: a new pool with one worker, the documented v1 MachineOSConfig (modern-mco.md §1.4, the push target
 * being the cluster's registry); `oc get machineosbuild` shows the build Building, then Succeeded; `oc logs job/build-…`
 * shows the build as it runs; the node's currentImage is the MachineOSConfig's status.currentImagePullSpec and the node
 * boots it; then `oc adm upgrade --to-image … --allow-explicit-upgrade --force`: a second MachineOSBuild, built FROM
 * 4.21's rhel-coreos (the image's label says so), and the node boots it with the custom content.
 */
import { expect } from 'chai';
import { getProfile } from '../../reference/profiles/index.js';
import { startReportSession, type ReportSession } from './support/report-session.js';
import { columns } from './support/report-flow.js';

const { next: NEXT } = getProfile('4.20-to-4.21').releases;
const NS = 'openshift-machine-config-operator';
const POOL = 'layered-image';
/** This run's own step, so the build is this run's and not the engine's cache of an earlier one. */
const RUN_ID = `run-${Date.now()}`;

interface Obj {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: any;
  status?: any;
}

describe('by hand on `cluster up --profile 4.20-to-4.21` with the real oc: an image-mode pool built, booted and upgraded', function () {
  this.timeout(480_000);
  let session: ReportSession;
  let node: string;
  let firstBuild: string;
  let firstImage: string;
  const sh = (command: string) => session.sh(command);
  const until = (command: string, done: (stdout: string) => boolean, timeoutMs = 180_000) => session.until(command, done, timeoutMs);
  const json = async <T>(command: string): Promise<T> => {
    const r = await sh(command);
    expect(r.exitCode, r.all).to.equal(0);
    return JSON.parse(r.stdout) as T;
  };
  const machineOsConfig = () => json<Obj>(`oc get machineosconfig ${POOL} -o json`);
  const nodeObject = () => json<Obj>(`oc get node ${node} -o json`);

  before(async function () {
    session = await startReportSession('4.20-to-4.21', 150_000, ['-v']);
    node = (await sh('oc get nodes -l node-role.kubernetes.io/worker -o jsonpath={.items[0].metadata.name}')).stdout.trim();
    expect(node, 'a worker to move').to.not.equal('');
    // a pool as OpenShift's docs make one: it takes worker's configs and the nodes labelled with its role
    const pool = [
      'apiVersion: machineconfiguration.openshift.io/v1',
      'kind: MachineConfigPool',
      'metadata:',
      `  name: ${POOL}`,
      'spec:',
      '  machineConfigSelector:',
      '    matchExpressions:',
      `    - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, ${POOL}]}`,
      '  nodeSelector:',
      '    matchLabels:',
      `      node-role.kubernetes.io/${POOL}: ""`,
      '',
    ].join('\n');
    expect((await sh(`oc create -f - <<'EOF'\n${pool}EOF`)).exitCode).to.equal(0);
    expect((await sh(`oc label node ${node} node-role.kubernetes.io/${POOL}=`)).exitCode).to.equal(0);
    await until(`oc get mcp ${POOL}`, (out) => columns(out.split('\n')[1]).slice(2, 5).join(' ') === 'True False False');
    // the push secret: the cluster's pull secret, which holds the registry's credentials
    const pullSecret = await sh("oc get secret pull-secret -n openshift-config -o jsonpath='{.data.\\.dockerconfigjson}' | base64 -d > pull-secret.json");
    expect(pullSecret.exitCode, pullSecret.all).to.equal(0);
    const push = await sh(`oc create secret generic push-secret -n ${NS} --type=kubernetes.io/dockerconfigjson --from-file=.dockerconfigjson=pull-secret.json`);
    expect(push.exitCode, push.all).to.equal(0);
  });

  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    // what the cluster said, for a failure's diagnosis
    if (failed) console.log(result.all.split('\n').slice(-80).join('\n'));
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('the documented MachineOSConfig: oc get machineosbuild shows it Building, then Succeeded, and oc logs job/build-… shows the build', async () => {
    const mosc = [
      'apiVersion: machineconfiguration.openshift.io/v1',
      'kind: MachineOSConfig',
      'metadata:',
      `  name: ${POOL}`,
      'spec:',
      '  machineConfigPool:',
      `    name: ${POOL}`,
      '  containerFile:',
      '  - containerfileArch: NoArch',
      '    content: |-',
      '      FROM configs AS final',
      '      RUN mkdir -p /etc/ocp-e2e && echo "built on the cluster" > /etc/ocp-e2e/image-mode.conf',
      `      RUN echo ${RUN_ID} > /etc/ocp-e2e/run-id`,
      '  imageBuilder:',
      '    imageBuilderType: Job',
      `  renderedImagePushSpec: ${session.registry}/ocp-e2e/os-image:latest`,
      '  renderedImagePushSecret:',
      '    name: push-secret',
      '',
    ].join('\n');
    // a person watches the builds while they happen: a build may pass Building between two looks
    const watching = await sh('(timeout 240 oc get machineosbuild -w > machineosbuild-watch.txt 2>&1 &)');
    expect(watching.exitCode, watching.all).to.equal(0);
    const created = await sh(`oc create -f - <<'EOF'\n${mosc}EOF`);
    expect(created.exitCode, created.all).to.equal(0);
    // the Job as soon as it is made: a build from a warm cache is over in a second or two
    const jobs = await sh(`grep -m1 'job.batch/build-' <(timeout 120 oc get jobs -n ${NS} -w -o name 2>/dev/null)`);
    expect(jobs.exitCode, `a build Job appeared: ${jobs.all}`).to.equal(0);
    const job = jobs.stdout.trim();
    firstBuild = job.replace('job.batch/build-', '');
    expect(firstBuild).to.match(new RegExp(`^${POOL}-[0-9a-f]{32}$`), 'named <MachineOSConfig>-<hash>');
    // the build's output, followed while it runs (the Job goes once the build succeeded, as upstream cleans it)
    const log = await sh(`oc logs -f ${job} -n ${NS} -c image-build`);
    expect(log.stdout, log.all).to.match(/Building .* FROM /);
    expect(log.stdout, log.all).to.contain('Pushed');
    // PREPARED BUILDING SUCCEEDED INTERRUPTED FAILED AGE: the printer columns of the v1 CRD
    const row = (out: string) => columns(out.split('\n').find((l) => l.startsWith(firstBuild)));
    await until('oc get machineosbuild', (out) => row(out)[3] === 'True');
    expect(row((await sh('oc get machineosbuild')).stdout)[5], 'not failed').to.equal('False');
    const seen = (await sh('cat machineosbuild-watch.txt')).stdout.split('\n').filter((l) => l.startsWith(firstBuild)).map(columns);
    const buildingAt = seen.findIndex((c) => c[2] === 'True');
    const succeededAt = seen.findIndex((c) => c[3] === 'True');
    expect(buildingAt, `oc get machineosbuild -w showed it Building:\n${seen.map((c) => c.join(' ')).join('\n')}`).to.be.at.least(0);
    expect(succeededAt, 'then Succeeded').to.be.above(buildingAt);
  });

  it("the node boots the built image: currentImage is the MachineOSConfig's currentImagePullSpec, which names the pushed digest", async () => {
    const status = await until(`oc get machineosconfig ${POOL} -o jsonpath={.status.currentImagePullSpec}`, (out) => out.includes('@sha256:'));
    firstImage = status.trim();
    expect(firstImage.startsWith(`${session.registry}/ocp-e2e/os-image@sha256:`), firstImage).to.equal(true);
    expect((await machineOsConfig()).metadata.annotations?.['machineconfiguration.openshift.io/current-machine-os-build']).to.equal(firstBuild);
    await until(`oc get node ${node} -o jsonpath='{.metadata.annotations.machineconfiguration\\.openshift\\.io/currentImage}'`, (out) => out.trim() === firstImage);
    await until(`oc get mcp ${POOL}`, (out) => columns(out.split('\n')[1]).slice(2, 5).join(' ') === 'True False False');
    const booted = await sh(`oc debug node/${node} -- chroot /host rpm-ostree status`);
    expect(booted.stdout, booted.all).to.contain(`ostree-unverified-registry:${firstImage}`);
    const file = await sh(`oc debug node/${node} -- chroot /host cat /etc/ocp-e2e/image-mode.conf`);
    expect(file.stdout, file.all).to.contain('built on the cluster');
  });

  it("oc adm upgrade --to-image …: a second MachineOSBuild is built FROM 4.21's rhel-coreos and the node boots it", async () => {
    // the release image to go to, as `cluster up` prints it (and its info ConfigMap keeps it)
    const nextImage = (await sh('oc get configmap ocp-e2e-reference-cluster -n kube-system -o jsonpath={.data.nextRelease}')).stdout.trim();
    expect(nextImage).to.match(/\/ocp\/release:/);
    const upgrade = await sh(`oc adm upgrade --to-image ${nextImage} --allow-explicit-upgrade --force`);
    expect(upgrade.exitCode, upgrade.all).to.equal(0);
    await until('oc get clusterversion', (out) => columns(out.split('\n')[1]).slice(0, 4).join(' ') === `version ${NEXT.version} True False`, 300_000);
    const second = await until(`oc get machineosconfig ${POOL} -o jsonpath='{.metadata.annotations.machineconfiguration\\.openshift\\.io/current-machine-os-build}'`, (out) => out.trim() !== '' && out.trim() !== firstBuild, 240_000);
    // the MCO names a build in the annotation when it starts it (startBuild): its success comes later
    await until(`oc get machineosbuild ${second.trim()} -o jsonpath='{.status.conditions[?(@.type=="Succeeded")].status}'`, (out) => out.trim() === 'True', 240_000);
    const build = await json<Obj>(`oc get machineosbuild ${second.trim()} -o json`);
    const failed = (build.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Failed');
    expect(failed?.status, JSON.stringify(build.status)).to.equal('False');
    const image = (await machineOsConfig()).status?.currentImagePullSpec as string;
    expect(image, 'a new image').to.not.equal(firstImage);
    const base = (await sh(`oc adm release info ${nextImage} --image-for=rhel-coreos`)).stdout.trim();
    // oc image info -o json: the image's config (architecture, config.Labels, ...) under `config`
    const info = await json<{ config?: { config?: { Labels?: Record<string, string> } } }>(`oc image info ${image} -o json`);
    expect(info.config?.config?.Labels?.baseOSContainerImage, "the build's base, from its label").to.equal(base);
    await until(`oc get node ${node} -o jsonpath='{.metadata.annotations.machineconfiguration\\.openshift\\.io/currentImage}'`, (out) => out.trim() === image, 240_000);
    const booted = await sh(`oc debug node/${node} -- chroot /host rpm-ostree status`);
    expect(booted.stdout, booted.all).to.contain(`ostree-unverified-registry:${image}`);
    const file = await sh(`oc debug node/${node} -- chroot /host cat /etc/ocp-e2e/image-mode.conf`);
    expect(file.stdout, file.all).to.contain('built on the cluster');
  });
});
