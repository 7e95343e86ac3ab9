/**
 * Which architectures a run must build (bin/run/preflight/build-architectures.ts): those of the nodes of the pools its
 * specs put a layered image on, none for a spec its nodes' architectures skip; an engine without one is exit 2 naming
 * it, its nodes and specs, and the ways out.
 */
import { expect } from 'chai';
import { checkBuildArchitectures, neededArchitectures, type SpecBuild } from '../../../bin/run/preflight/build-architectures.js';
import { referenceArchNodes } from '../../../bin/run/targets/reference-nodes.js';
import { UsageError } from '../../../bin/run/usage-error.js';
import { EngineBuildPlatforms } from '../../../lib/oci/build-platforms.js';

const declared = { epic: 'e', feature: 'f', story: 's', caseId: 'x', changes: [], disruptive: true, upgrades: true };
const both: SpecBuild = { spec: '01.spec.ts', declared: { ...declared, pools: { master: { image: 'layered' }, worker: { image: 'layered' } } } };
const masterOnly: SpecBuild = { spec: '13.spec.ts', declared: { ...declared, pools: { master: { image: 'layered' }, worker: { image: 'release' } } } };
const kernelRt: SpecBuild = { spec: '10.spec.ts', declared: { ...declared, pools: { worker: { image: 'layered' } }, architectures: { only: ['amd64'], why: 'kernel-rt' } } };
const noBuild: SpecBuild = { spec: '03.spec.ts', declared: { ...declared, pools: { worker: { image: 'release' } } } };

describe('run: the architectures the layered images are built for', function () {
  it('are those of the nodes of the pools given the image; a spec skipped for its nodes needs none', function () {
    const multi = referenceArchNodes({ arch: 'multi' });
    const needed = neededArchitectures([both, kernelRt, noBuild], multi);
    expect([...needed.keys()]).to.deep.equal(['amd64', 'arm64']);
    expect(needed.get('arm64')).to.deep.equal({ nodes: ['ip-10-0-160-21.us-east-2.compute.internal'], specs: ['01.spec.ts'] });
    expect([...neededArchitectures([masterOnly], multi).keys()]).to.deep.equal(['amd64']);
    expect([...neededArchitectures([kernelRt], referenceArchNodes({ arch: 'arm64' })).keys()]).to.deep.equal([]);
    expect([...neededArchitectures([kernelRt], referenceArchNodes({ arch: 'amd64' })).keys()]).to.deep.equal(['amd64']);
  });

  it('an engine that cannot build one stops the run with exit 2, naming it, its nodes and the ways out', async function () {
    const platforms = new EngineBuildPlatforms(async () => expect.fail('no engine is asked'), { OCP_E2E_BUILD_PLATFORMS: 'linux/amd64' });
    const error = await checkBuildArchitectures([both], referenceArchNodes({ arch: 'multi' }), platforms).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(UsageError);
    expect((error as UsageError).exitCode).to.equal(2);
    expect((error as Error).message).to.include('cannot build the layered OS image for arm64 (linux/arm64): OCP_E2E_BUILD_PLATFORMS=linux/amd64 does not list linux/arm64')
      .and.include('1 node(s) of the specs\' pools run arm64 (ip-10-0-160-21.us-east-2.compute.internal; spec(s) 01.spec.ts)')
      .and.include('update-binfmts --enable qemu-aarch64').and.include('a native builder');
    expect(await checkBuildArchitectures([both], referenceArchNodes({ arch: 'amd64' }), platforms)).to.match(/^layered images are built for amd64 \(5 node\(s\)/);
  });
});
