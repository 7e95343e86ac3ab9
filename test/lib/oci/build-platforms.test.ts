/**
 * What the engine can build (lib/oci/build-platforms.ts): OCP_E2E_BUILD_PLATFORMS parsed and refused by name, the
 * probe programs really run (the host's natively; arm64 through the machine's binfmt registration), and the probe
 * asked of the engine once per architecture.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuildPlatformsError, EngineBuildPlatforms, exitZeroElf, hostArchitecture, parseBuildPlatforms } from '../../../lib/oci/build-platforms.js';
import { connectEngine, type Engine } from '../../../lib/oci/engine.js';

describe('build platforms', function () {
  it('parses OCP_E2E_BUILD_PLATFORMS and refuses what is not linux/<arch>', function () {
    expect(parseBuildPlatforms('linux/amd64, linux/arm64,linux/amd64')).to.deep.equal(['amd64', 'arm64']);
    expect(() => parseBuildPlatforms('linux/amd64,arm64')).to.throw(BuildPlatformsError, '"arm64" is not a platform; give a comma list of linux/<arch>');
    expect(() => new EngineBuildPlatforms(async () => ({}) as Engine, { OCP_E2E_BUILD_PLATFORMS: 'windows/amd64' })).to.throw(BuildPlatformsError, 'windows/amd64');
  });

  it('answers from the variable without asking the engine', async function () {
    const platforms = new EngineBuildPlatforms(async () => expect.fail('the engine was asked'), { OCP_E2E_BUILD_PLATFORMS: 'linux/amd64' });
    expect(await platforms.canBuild('arm64')).to.deep.include({ canBuild: false, how: 'OCP_E2E_BUILD_PLATFORMS=linux/amd64 does not list linux/arm64' });
    expect(await platforms.canBuild('amd64')).to.deep.include({ canBuild: true });
  });

  it("the probe programs exit 0 on their architecture (the host's natively, arm64 through qemu where binfmt has it)", async function () {
    const dir = await mkdtemp(path.join(tmpdir(), 'elf-'));
    try {
      for (const arch of ['amd64', 'arm64']) {
        if (arch !== hostArchitecture() && !existsSync(`/proc/sys/fs/binfmt_misc/qemu-${arch === 'arm64' ? 'aarch64' : 'x86_64'}`)) continue;
        const file = path.join(dir, arch);
        await writeFile(file, exitZeroElf(arch)! as Uint8Array, { mode: 0o755 });
        execFileSync(file); // throws on a non-zero exit or an exec format error
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(exitZeroElf('s390x')).to.equal(undefined);
  });

  it('probes the engine with a real build once per architecture', async function () {
    this.timeout(120_000);
    let connects = 0;
    const platforms = new EngineBuildPlatforms(async () => (connects++, connectEngine()), {});
    const other = hostArchitecture() === 'amd64' ? 'arm64' : 'amd64';
    const emulated = existsSync(`/proc/sys/fs/binfmt_misc/qemu-${other === 'arm64' ? 'aarch64' : 'x86_64'}`);
    const first = await platforms.canBuild(other);
    expect(first.canBuild, first.how).to.equal(emulated);
    expect(await platforms.canBuild(other)).to.equal(first);
    expect(connects).to.equal(1);
    // the architecture the probe cannot run says so, and is not taken as buildable
    expect(await platforms.canBuild('s390x')).to.deep.include({ canBuild: false });
  });
});
