/**
 * The kube-apiserver operator's kubelet skew rule as the reference plays it (reference/kube-apiserver/kubelet-skew.ts),
 * case by case against the upstream controller's rule and texts: synced, behind but supported next minor, unsupported
 * in the next minor (even and odd minors), already unsupported, ahead, unparsable; one, two or three named nodes, more
 * counted; 4.21's and 4.22's wordings; and the union into the ClusterOperator's Upgradeable.
 */
import { expect } from 'chai';
import { kubeletSkewCondition, upgradeableOf } from '../../../reference/kube-apiserver/kubelet-skew.js';

const nodes = (...versions: string[]) => versions.map((v, i) => ({ node: `node-${String.fromCharCode(97 + i)}`, kubeletVersion: v }));

describe('reference: the kube-apiserver operator\'s kubelet skew rule', () => {
  it('synced kubelets are upgradeable', () => {
    expect(kubeletSkewCondition(nodes('v1.35.0+abc', 'v1.35.2'), '1.35.0', 22, 'version')).to.deep.equal({
      type: 'KubeletMinorVersionUpgradeable',
      status: 'True',
      reason: 'KubeletMinorVersionsSynced',
      message: 'Kubelet and API server versions are synced.',
    });
  });

  it('on 4.22 (even) a 4.21 kubelet is supported now but not by 4.23 (odd): Upgradeable=False naming it', () => {
    const c = kubeletSkewCondition(nodes('v1.35.0', 'v1.34.0+4d6a4e8'), '1.35.0', 22, 'version');
    expect(c).to.deep.include({ status: 'False', reason: 'KubeletMinorVersionUnsupportedNextUpgrade' });
    expect(c.message).to.equal('Kubelet version (1.34.0+4d6a4e8) on node node-b will not be supported in the next OpenShift version upgrade.');
    expect(upgradeableOf(c)).to.deep.equal({
      type: 'Upgradeable',
      status: 'False',
      reason: 'KubeletMinorVersion_KubeletMinorVersionUnsupportedNextUpgrade',
      message: 'KubeletMinorVersionUpgradeable: Kubelet version (1.34.0+4d6a4e8) on node node-b will not be supported in the next OpenShift version upgrade.',
    });
  });

  it('on 4.21 (odd) a 4.20 kubelet stays supported by 4.22 (even): True, with 4.21\'s "minor version" wording', () => {
    const c = kubeletSkewCondition(nodes('v1.33.0', 'v1.33.0', 'v1.34.0'), '1.34.0', 21, 'minor-version');
    expect(c).to.deep.include({ status: 'True', reason: 'KubeletMinorVersionSupportedNextUpgrade' });
    expect(c.message).to.equal('Kubelet minor versions on nodes node-a and node-b are behind the expected API server version; nevertheless, they will continue to be supported in the next OpenShift minor version upgrade.');
    expect(upgradeableOf(c)).to.deep.include({ status: 'True', reason: 'AsExpected' });
  });

  it('two minors behind on an odd minor is unsupported already, the most severe finding', () => {
    const c = kubeletSkewCondition(nodes('v1.32.0', 'v1.33.0', 'v1.33.0', 'v1.34.0'), '1.34.0', 21, 'minor-version');
    expect(c).to.deep.include({ status: 'False', reason: 'KubeletMinorVersionUnsupported' });
    expect(c.message).to.equal('Unsupported kubelet minor version (1.32.0) on node node-a is too far behind the target API server version (1.34.0).');
  });

  it('three nodes are named with a serial comma, four or more counted', () => {
    const three = kubeletSkewCondition(nodes('v1.34.0', 'v1.34.0', 'v1.34.0'), '1.35.0', 22, 'version');
    expect(three.message).to.equal('Kubelet versions on nodes node-a, node-b, and node-c will not be supported in the next OpenShift version upgrade.');
    const five = kubeletSkewCondition(nodes('v1.34.0', 'v1.34.0', 'v1.34.0', 'v1.34.0', 'v1.34.0'), '1.35.0', 22, 'version');
    expect(five.message).to.equal('Kubelet versions on 5 nodes will not be supported in the next OpenShift version upgrade.');
  });

  it('a kubelet ahead of the API server, or one that cannot be read, makes the condition Unknown', () => {
    expect(kubeletSkewCondition(nodes('v1.36.0'), '1.35.0', 22, 'version')).to.deep.include({ status: 'Unknown', reason: 'KubeletMinorVersionAhead' });
    expect(kubeletSkewCondition(nodes('', 'v1.35.0'), '1.35.0', 22, 'version')).to.deep.include({ status: 'Unknown', reason: 'KubeletVersionUnknown' });
    expect(upgradeableOf(kubeletSkewCondition(nodes('v1.36.0'), '1.35.0', 22, 'version'))).to.deep.include({ status: 'Unknown', reason: 'KubeletMinorVersion_KubeletMinorVersionAhead' });
  });
});
