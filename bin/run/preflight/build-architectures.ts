/**
 * Before any cluster time: the engine can build the layered image for every architecture of the nodes the run's specs
 * put it on (helpers/build-architectures.ts). An arm64 node boots no amd64 image (4.16+'s rpm-ostree refuses it), so a
 * build the engine cannot make would otherwise surface in the middle of a spec, after its cluster time began. The
 * engine is asked by a real build per architecture (lib/oci/build-platforms.ts), or OCP_E2E_BUILD_PLATFORMS says.
 */
import { basename } from 'node:path';
import { archNodeOf, architecturesOf, buildRoles, type ArchNode } from '../../../helpers/build-architectures.js';
import type { DeclaredCase } from '../../../helpers/declared-case.js';
import { BUILD_PLATFORMS_ENV, BuildPlatformsError, EngineBuildPlatforms, hostArchitecture } from '../../../lib/oci/build-platforms.js';
import { connectEngine } from '../../../lib/oci/engine.js';
import { UNAME_ARCH } from '../../../lib/oci/platform-images.js';
import { listTests } from '../spec-listing.js';
import { UsageError } from '../usage-error.js';
import { EXIT } from './exit-codes.js';

/** One spec file's build, as its declarations tell it. */
export interface SpecBuild {
  spec: string;
  declared: DeclaredCase;
}

/** What each selected file declares (mocha --dry-run, cached: no cluster). Non-disruptive specs build nothing. */
export async function specBuilds(files: string[]): Promise<SpecBuild[]> {
  const listed = await listTests(files, 'all');
  return listed.filter((t) => t.declared?.disruptive).map((t) => ({ spec: basename(t.file), declared: t.declared! }));
}

/** The nodes of `roles`. */
function nodesIn(nodes: readonly ArchNode[], roles: readonly string[]): ArchNode[] {
  return nodes.filter((n) => n.roles.some((r) => roles.includes(r)));
}

/**
 * Per architecture, the nodes that will boot a layered image of that architecture and the specs that build it. A spec
 * whose pools have a node of an architecture it does not run on (kernel-rt's, x86_64 only) is skipped by its own
 * process before any cluster time, with the reason: it needs no build.
 */
export function neededArchitectures(builds: readonly SpecBuild[], nodes: readonly ArchNode[]): Map<string, { nodes: string[]; specs: string[] }> {
  const needed = new Map<string, { nodes: Set<string>; specs: Set<string> }>();
  for (const { spec, declared } of builds) {
    const only = declared.architectures?.only;
    const judged = nodesIn(nodes, [...Object.keys(declared.pools ?? {}), ...(declared.nodesIn ?? [])]);
    if (only && judged.some((n) => !only.includes(n.architecture))) continue;
    for (const [arch, names] of architecturesOf(nodesIn(nodes, buildRoles(declared)))) {
      const entry = needed.get(arch) ?? { nodes: new Set<string>(), specs: new Set<string>() };
      names.forEach((n) => entry.nodes.add(n));
      entry.specs.add(spec);
      needed.set(arch, entry);
    }
  }
  return new Map([...needed].map(([arch, e]) => [arch, { nodes: [...e.nodes], specs: [...e.specs] }]));
}

/** The run's engine, asked once per architecture for the whole run (the --one-cluster path checks twice). */
let platformsOfRun: EngineBuildPlatforms | undefined;
function runPlatforms(): EngineBuildPlatforms {
  try {
    platformsOfRun ??= new EngineBuildPlatforms(connectEngine);
  } catch (error) {
    if (error instanceof BuildPlatformsError) throw new UsageError(error.message, EXIT.usage);
    throw error;
  }
  return platformsOfRun;
}

/** The ways to build for `arch` when the engine cannot. */
function waysOut(arch: string): string {
  const qemu = `qemu-${UNAME_ARCH[arch] ?? arch}`;
  return (
    `install qemu-user-static and register it with binfmt_misc on the engine's machine (apt-get install -y qemu-user-static binfmt-support; ` +
    `mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable ${qemu}), or point DOCKER_HOST at an engine on a machine of architecture ${arch} (a native builder)` +
    `${process.env[BUILD_PLATFORMS_ENV] !== undefined ? `, and list linux/${arch} in ${BUILD_PLATFORMS_ENV} (or unset it to have the engine probed)` : ''}`
  );
}

/**
 * Checks the engine builds every needed architecture; returns the console line that says what will be built. Exit 2
 * naming the architecture, its nodes and specs, why the engine cannot, and the ways out.
 */
export async function checkBuildArchitectures(builds: readonly SpecBuild[], nodes: readonly ArchNode[], platforms?: EngineBuildPlatforms): Promise<string | undefined> {
  const needed = neededArchitectures(builds, nodes);
  if (needed.size === 0) return undefined;
  const engine = platforms ?? runPlatforms();
  const answers = [];
  for (const [arch, { nodes: names, specs }] of needed) {
    const answer = await engine.canBuild(arch);
    if (!answer.canBuild) {
      throw new UsageError(
        `the container engine cannot build the layered OS image for ${arch} (linux/${arch}): ${answer.how}. ` +
          `${names.length} node(s) of the specs' pools run ${arch} (${names.join(', ')}; spec(s) ${specs.join(', ')}) and boot no image of another architecture. ` +
          `Ways out: ${waysOut(arch)}.`,
        EXIT.usage,
      );
    }
    answers.push(`${arch} (${names.length} node(s); ${answer.how})`);
  }
  const host = hostArchitecture();
  return `layered images are built for ${answers.join(', ')}${needed.size > 1 ? ', pushed as one image index' : ''}; the engine's host is ${host}`;
}

/** The nodes of a cluster, read once (the launcher's preflight already holds a client). */
export async function clusterArchNodes(list: () => Promise<Array<Parameters<typeof archNodeOf>[0]>>): Promise<ArchNode[]> {
  return (await list()).map(archNodeOf);
}
