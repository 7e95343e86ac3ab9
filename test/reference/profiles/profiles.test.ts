/**
 * The registry of profiles: every profile module is listed, each names its releases, channel and upstream commit, the
 * versions are written once, and the release accessors find the base OS image under either of OpenShift's names.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withDeviations, NO_DEVIATIONS } from '../../../reference/faults.js';
import { DEFAULT_PROFILE, getProfile, mcoAt, PROFILE_NAMES, PROFILES, REPORT_PROFILE } from '../../../reference/profiles/index.js';
import type { Profile } from '../../../reference/profiles/profile.js';
import { releaseMetadata } from '../../../reference/releases/recipes.js';
import { baseOsImage, baseOsTag, extensionsImage, isOsImageTag, machineOsContent } from '../../../reference/releases/release-info.js';
import { previousVersions, releasePath, sameReleases, withOsImageTags } from '../../../reference/releases/release-set.js';

const PROFILES_DIR = fileURLToPath(new URL('../../../reference/profiles/', import.meta.url));
const REFERENCE_DIR = fileURLToPath(new URL('../../../reference/', import.meta.url));

/** Every .ts file under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.isFile() && e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('profiles', () => {
  it('every module of reference/profiles/ whose default export is a profile is in the registry, under its own name', async () => {
    const found: string[] = [];
    for (const file of readdirSync(PROFILES_DIR).filter((n) => n.endsWith('.ts'))) {
      const module = (await import(pathToFileURL(path.join(PROFILES_DIR, file)).href)) as { default?: Partial<Profile> };
      const value = module.default;
      if (!value || typeof value !== 'object' || !('releases' in value)) continue;
      found.push(value.name!);
      expect(file, 'a profile module is named after its profile').to.equal(`${value.name}.ts`);
      // the module loaded by file may be a second instance of the one the registry imports: compare what it holds
      expect(PROFILES[value.name as keyof typeof PROFILES], `${file} is not listed in reference/profiles/index.ts`).to.deep.equal(value);
    }
    expect(found).to.have.members([...PROFILE_NAMES]);
    expect(PROFILE_NAMES).to.include(DEFAULT_PROFILE).and.to.include(REPORT_PROFILE);
  });

  it('each profile names its releases, their OS image tags and channel, and the upstream commit it models', () => {
    for (const name of PROFILE_NAMES) {
      const p = getProfile(name);
      expect(p.upstream.commit, name).to.match(/^[0-9a-f]{40}$/);
      expect(p.upstream.label, name).to.match(/^(BUG-[AB]|FIX|4\.\d+)$/);
      expect(p.releases.channel, name).to.match(/^(stable|fast|candidate|eus)-\d+\.\d+$/);
      for (const release of [p.releases.current, p.releases.next]) {
        expect(release.version, name).to.match(/^\d+\.\d+\.\d+/);
        expect(isOsImageTag(release.osImageTags.base), `${name}: ${release.osImageTags.base}`).to.equal(true);
      }
      expect(p.releases.current.version).to.not.equal(p.releases.next.version);
      expect(p.summary.length, name).to.be.within(3, 40);
    }
    expect(getProfile('4.12-ga').upstream.label).to.equal('FIX');
    expect(getProfile('4.12-nightly-2022-09-08').upstream.label).to.equal('BUG-B');
  });

  it('a release version is written in one file of reference/ only', () => {
    const versions = new Set(PROFILE_NAMES.flatMap((n) => releasePath(PROFILES[n].releases).map((r) => r.version)));
    for (const version of versions) {
      // as a string literal: 4.12.0 is also the start of the nightlies' versions
      const holders = sources(REFERENCE_DIR).filter((f) => readFileSync(f, 'utf8').includes(`'${version}'`));
      expect(holders, version).to.have.length(1);
    }
  });

  it('an unknown name lists the registry; no name is the default', () => {
    expect(getProfile(undefined).name).to.equal(DEFAULT_PROFILE);
    expect(() => getProfile('4.13')).to.throw(`unknown profile "4.13"; valid profiles: ${PROFILE_NAMES.join(', ')}`);
    expect(() => getProfile('toString')).to.throw('unknown profile "toString"');
  });

  it("a profile's own deviations are switched on on top of the faults'", () => {
    expect(withDeviations(NO_DEVIATIONS, [])).to.equal(NO_DEVIATIONS);
    const both = withDeviations({ ...NO_DEVIATIONS, renderKeepsCurrentOsImage: true }, ['daemonSkipsRebase']);
    expect(both).to.include({ renderKeepsCurrentOsImage: true, daemonSkipsRebase: true, renderMergesInReverseOrder: false });
  });
});

describe('release sets and the OS images of a release', () => {
  const set = getProfile(undefined).releases;
  const at = (osImages: Record<string, string>) => ({ osImages });

  it('finds the base OS, machine-os-content and extensions under the 4.12 and the 4.13+ names', () => {
    const r412 = at({ 'rhel-coreos-8': 'reg/os@sha256:b', 'machine-os-content': 'reg/os@sha256:m', 'rhel-coreos-8-extensions': 'reg/os@sha256:e' });
    expect([baseOsTag(r412), baseOsImage(r412), machineOsContent(r412), extensionsImage(r412)]).to.deep.equal(['rhel-coreos-8', 'reg/os@sha256:b', 'reg/os@sha256:m', 'reg/os@sha256:e']);
    const r413 = at({ 'rhel-coreos': 'reg/os@sha256:b', 'rhel-coreos-extensions': 'reg/os@sha256:e' });
    expect([baseOsTag(r413), baseOsImage(r413), machineOsContent(r413), extensionsImage(r413)]).to.deep.equal(['rhel-coreos', 'reg/os@sha256:b', 'reg/os@sha256:b', 'reg/os@sha256:e']);
    const old = at({ 'machine-os-content': 'reg/os@sha256:m' });
    expect([baseOsTag(old), baseOsImage(old), extensionsImage(old)]).to.deep.equal([undefined, 'reg/os@sha256:m', undefined]);
    expect(() => baseOsImage(at({ cli: 'reg/cli@sha256:c' }))).to.throw('the release names no OS image (it has: cli)');
    expect(['rhel-coreos', 'rhel-coreos-8', 'rhel-coreos-9-extensions', 'machine-os-content'].every(isOsImageTag)).to.equal(true);
    expect(['cli', 'rhel-coreos-8-foo', 'machine-config-operator'].some(isOsImageTag)).to.equal(false);
  });

  it('renaming the OS images keeps the versions and channel; the next release updates from the current one', () => {
    const renamed = withOsImageTags(set, { base: 'rhel-coreos' });
    expect([renamed.channel, renamed.current.version, renamed.next.version]).to.deep.equal([set.channel, set.current.version, set.next.version]);
    expect(renamed.next.osImageTags).to.deep.equal({ base: 'rhel-coreos' });
    expect(sameReleases(set, renamed)).to.equal(false);
    expect(sameReleases(set, withOsImageTags(set, { ...set.current.osImageTags }))).to.equal(true);
    expect(previousVersions(set, set.next.version)).to.deep.equal([set.current.version]);
    expect(previousVersions(set, set.current.version)).to.deep.equal([]);
  });

  it('a path of several hops: each release updates only from the one before it, and runs its own MCO code', () => {
    const eus = getProfile('4.20-to-4.22');
    expect(releasePath(eus.releases).map((r) => r.version)).to.deep.equal(['4.20.0', '4.21.0', '4.22.0']);
    expect(previousVersions(eus.releases, '4.22.0')).to.deep.equal(['4.21.0']);
    expect(previousVersions(eus.releases, '4.21.0')).to.deep.equal(['4.20.0']);
    expect(previousVersions(eus.releases, '4.20.0')).to.deep.equal([]);
    expect(['4.20.0', '4.21.0', '4.22.0', undefined].map((v) => mcoAt(eus, v).upstream.label)).to.deep.equal(['4.20', '4.21', '4.22', '4.20']);
    // a profile of one hop: next's code, and the installed release's for anything else
    const onehop = getProfile('4.12-to-4.13');
    expect(['4.12.0', '4.13.0'].map((v) => mcoAt(onehop, v).upstream.label)).to.deep.equal(['FIX', '4.13']);
    expect(sameReleases(eus.releases, getProfile('4.20-to-4.21').releases)).to.equal(false);
    expect(releasePath(withOsImageTags(eus.releases, { base: 'x' })).map((r) => r.osImageTags.base)).to.deep.equal(['x', 'x', 'x']);
  });

  it('release-metadata points at the release stream of the version', () => {
    expect(releaseMetadata('4.12.0-0.nightly-2022-09-12-152748', ['4.12.0-0.nightly-2022-09-08-002336'])).to.deep.equal({
      kind: 'cincinnati-metadata-v0',
      version: '4.12.0-0.nightly-2022-09-12-152748',
      previous: ['4.12.0-0.nightly-2022-09-08-002336'],
      metadata: { url: 'https://amd64.ocp.releases.ci.openshift.org/releasestream/4.12.0-0.nightly/release/4.12.0-0.nightly-2022-09-12-152748' },
    });
  });
});
