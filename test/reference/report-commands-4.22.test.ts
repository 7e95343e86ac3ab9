/**
 * The report's flow typed by hand on a 4.21 cluster upgraded to 4.22 (`cluster up --profile 4.21-to-4.22`), with the
 * real `oc` 4.12 and docker: a layered image built on 4.21's `rhel-coreos`, both pools overridden, `oc adm upgrade
 * --to-image <4.22> --allow-explicit-upgrade --force`. The upgrade completes and machine-config is not Degraded; the
 * nodes keep the custom image and with it 4.21's kubelet, so the kube-apiserver operator reports the cluster not
 * upgradeable to the next minor (4.23, odd, supports one kubelet minor behind: cluster-kube-apiserver-operator
 * pkg/operator/kubeletversionskewcontroller). The image rebuilt FROM 4.22's base brings the kubelets back in step, and
 * Upgradeable back to True. Once 4.22's daemons run, an unpullable override leaves 4.22's text on the node.
 */
import { expect } from 'chai';
import { getProfile } from '../../reference/profiles/index.js';
import { startReportSession, type ReportSession } from './support/report-session.js';
import { columns, reportFlow, type ReportFlow } from './support/report-flow.js';
import { reportMachineConfigCommand } from './support/report-steps.js';

const { current: CURRENT, next: NEXT } = getProfile('4.21-to-4.22').releases;

describe('the report\'s commands by hand on `cluster up --profile 4.21-to-4.22` with the real oc: 4.21 upgraded to 4.22', function () {
  this.timeout(240_000);
  let session: ReportSession;
  let registry: string;
  let flow: ReportFlow;
  let worker: string;
  let master: string;
  const sh = (command: string) => session.sh(command);
  const until = (command: string, done: (stdout: string) => boolean, timeoutMs = 90_000) => session.until(command, done, timeoutMs);
  const upgradeable = () => sh(`oc get co kube-apiserver -o jsonpath='{range .status.conditions[?(@.type=="Upgradeable")]}{.status}|{.reason}|{.message}{end}'`);

  before(async function () {
    session = await startReportSession('4.21-to-4.22', 150_000);
    ({ registry } = session);
    flow = reportFlow(session);
    worker = (await sh('oc get nodes -l node-role.kubernetes.io/worker -o name')).stdout.split('\n')[0]!.replace(/^node\//, '');
    master = (await sh('oc get nodes -l node-role.kubernetes.io/master -o name')).stdout.split('\n')[0]!.replace(/^node\//, '');
  });

  after(async () => {
    if (!session) return;
    const result = await session.stop();
    expect(result.exitCode, result.all).to.equal(0);
  });

  it('both payloads name rhel-coreos and its extensions on RHEL 9.6, and rhel-coreos-10 beside them; no machine-os-content', async () => {
    for (const release of [CURRENT, NEXT]) {
      const info = await sh(`oc adm release info --pullspecs ${registry}/ocp/release:${release.version} 2> /dev/null | grep -E "rhel|machine-os"`);
      expect(info.exitCode, info.all).to.equal(0);
      expect(info.stdout, release.version).to.match(/^\s+rhel-coreos\s+\S+@sha256:[0-9a-f]{64}$/m);
      expect(info.stdout, release.version).to.match(/^\s+rhel-coreos-extensions\s/m);
      expect(info.stdout, release.version).to.match(/^\s+rhel-coreos-10\s+\S+@sha256:[0-9a-f]{64}$/m);
      expect(info.stdout, release.version).to.match(/^\s+rhel-coreos-10-extensions\s/m);
      expect(info.stdout, release.version).not.to.match(/machine-os-content|rhel-coreos-8/);
    }
    const base = await sh(`oc adm release info --image-for=rhel-coreos`);
    const os = await sh(`docker run --rm ${base.stdout.trim()} cat /etc/os-release`);
    expect(os.stdout, os.all).to.include('RHEL_VERSION="9.6"');
    const ten = await sh(`oc adm release info --image-for=rhel-coreos-10`);
    const os10 = await sh(`docker run --rm ${ten.stdout.trim()} cat /etc/os-release`);
    expect(os10.stdout, os10.all).to.include('RHEL_VERSION="10.1"');
    expect(os10.stdout).to.include('PLATFORM_ID="platform:el10"');
  });

  it('on 4.21 the templates carry no osImageURL and every kubelet is 4.21\'s, so kube-apiserver is Upgradeable', async () => {
    const template = await sh('oc get mc 00-worker -o jsonpath={.spec.osImageURL}');
    expect(template.exitCode, template.all).to.equal(0);
    expect(template.stdout).to.equal('');
    const kubelets = await sh("oc get nodes -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{\"\\n\"}{end}'");
    expect(new Set(kubelets.stdout.split('\n').map((v) => v.replace(/\+.*/, '')))).to.deep.equal(new Set(['v1.34.0']));
    const up = await until(`oc get co kube-apiserver -o jsonpath='{range .status.conditions[?(@.type=="Upgradeable")]}{.status}|{.reason}|{.message}{end}'`, (out) => out.startsWith('True|'));
    expect(up).to.equal('True|AsExpected|KubeletMinorVersionUpgradeable: Kubelet and API server versions are synced.');
  });

  it('steps 2-6: the image built FROM 4.21\'s rhel-coreos overrides both pools; the upgrade to 4.22 completes, machine-config is not Degraded, the nodes keep the custom image', async () => {
    const base = (await sh('oc adm release info --image-for=rhel-coreos')).stdout.trim();
    expect(base).to.match(/@sha256:[0-9a-f]{64}$/);
    const image = `${registry}/sregidor/sregidor-os:mco_layering`;
    await flow.buildAndPush(base, image);
    let before = await flow.poolConfigs();
    for (const role of ['master', 'worker'] as const) {
      const r = await sh(reportMachineConfigCommand(role, image));
      expect(r.exitCode, r.all).to.equal(0);
    }
    await flow.poolsUpdatedAway(before);
    before = await flow.poolConfigs();
    const upgrade = await sh(`oc adm upgrade --to-image ${registry}/ocp/release:${NEXT.version} --allow-explicit-upgrade --force`);
    expect(upgrade.exitCode, upgrade.all).to.equal(0);
    await until('oc get clusterversion', (out) => columns(out.split('\n')[1]).slice(0, 4).join(' ') === `version ${NEXT.version} True False`);
    const co = await until('oc get co machine-config', (out) => columns(out.split('\n')[1]).slice(0, 5).join(' ') === `machine-config ${NEXT.version} True False False`);
    expect(co).not.to.include('osImageURL mismatch');
    await flow.poolsUpdatedAway(before);
    for (const node of [worker, master]) {
      const status = await sh(`oc debug node/${node} -- chroot /host rpm-ostree status`);
      expect(status.exitCode, status.all).to.equal(0);
      expect(status.stdout, `node ${node}`).to.match(/^\* ostree-unverified-registry:\S+\/sregidor\/sregidor-os:mco_layering$/m);
    }
    const template = await sh('oc get mc 00-worker -o jsonpath={.spec.osImageURL}');
    expect(template.stdout, 'after the upgrade 00-worker carries no osImageURL').to.equal('');
  });

  it('after it, every node keeps 4.21\'s kubelet and kube-apiserver is Upgradeable=False for the next minor, with the operator\'s reason and message', async () => {
    const nodes = (await sh('oc get nodes -o name')).stdout.split('\n').filter(Boolean);
    const kubelets = await sh("oc get nodes -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{\"\\n\"}{end}'");
    expect(new Set(kubelets.stdout.split('\n').map((v) => v.replace(/\+.*/, '')))).to.deep.equal(new Set(['v1.34.0']));
    const up = await until(`oc get co kube-apiserver -o jsonpath='{range .status.conditions[?(@.type=="Upgradeable")]}{.status}|{.reason}|{.message}{end}'`, (out) => out.startsWith('False|'));
    const [status, reason, message] = up.split('|');
    expect(status).to.equal('False');
    expect(reason).to.equal('KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade');
    // more than three nodes: the operator counts them instead of naming them
    expect(message).to.equal(`KubeletMinorVersionUpgradeable: Kubelet versions on ${nodes.length} nodes will not be supported in the next OpenShift version upgrade.`);
  });

  it('the image rebuilt FROM 4.22\'s rhel-coreos brings every kubelet to 4.22\'s, and Upgradeable back to True', async () => {
    const base = (await sh('oc adm release info --image-for=rhel-coreos')).stdout.trim();
    const image = `${registry}/sregidor/sregidor-os:mco_layering_422`;
    await flow.buildAndPush(base, image);
    const before = await flow.poolConfigs();
    for (const role of ['master', 'worker']) {
      const r = await sh(`oc patch mc tc-54183-new-os-image-upgrade-${role} --type merge -p '{"spec":{"osImageURL":"${image}"}}'`);
      expect(r.exitCode, r.all).to.equal(0);
    }
    await flow.poolsUpdatedAway(before);
    const up = await until(`oc get co kube-apiserver -o jsonpath='{range .status.conditions[?(@.type=="Upgradeable")]}{.status}|{.reason}|{.message}{end}'`, (out) => out.startsWith('True|'));
    expect(up).to.equal('True|AsExpected|KubeletMinorVersionUpgradeable: Kubelet and API server versions are synced.');
    expect((await upgradeable()).stdout).to.equal(up);
  });

  it('with 4.22\'s daemons, an unpullable worker override leaves 4.22\'s reason: the last rpm-ostree error, then the timeout', async () => {
    const image = `${registry}/ocp-e2e/not-there:missing`;
    const r = await sh(`oc patch mc tc-54183-new-os-image-upgrade-worker --type merge -p '{"spec":{"osImageURL":"${image}"}}'`);
    expect(r.exitCode, r.all).to.equal(0);
    const reasons = async (): Promise<string[]> => {
      const nodes = JSON.parse((await sh('oc get nodes -l node-role.kubernetes.io/worker -o json')).stdout) as { items: Array<{ metadata: { annotations?: Record<string, string> } }> };
      return nodes.items.map((n) => n.metadata.annotations?.['machineconfiguration.openshift.io/reason'] ?? '');
    };
    await until('oc get mcp worker', (out) => columns(out.split('\n')[1])[4] === 'True', 120_000);
    const reason = (await reasons()).find((r) => r.includes('after retries'));
    expect(reason, 'a worker reports the failed update').to.not.equal(undefined);
    const quoted = image.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(reason).to.match(new RegExp(`^failed to update OS to ${quoted} after retries: error running rpm-ostree rebase --experimental ostree-unverified-registry:${quoted}: error: .+\n: exit status 1: timed out waiting for the condition$`, 's'));
  });
});
