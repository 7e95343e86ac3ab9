/**
 * The build pod's two containers as a program the kubelet stand-in runs (reference/kubelet/pod-programs.ts), playing
 * upstream's scripts (MCO release-4.20 pkg/controller/build/buildrequest/assets/buildah-build.sh and
 * create-digest-cm.sh; modern-mco.md §1.5-1.6):
 *  - `image-build` builds the Containerfile FROM the release's base with the container engine the machine has
 *    (lib/oci/engine.ts: dockerd or podman), pulling with the base pull secret, pushes the image to the build's tag
 *    with the push secret and keeps the pushed digest (upstream's `/tmp/done/digestfile`, an emptyDir shared by the
 *    two containers); every line of the engine's output goes to the container's log; a failing step or push exits 1
 *    with the engine's error, and with no engine the container says which addresses it tried;
 *  - `create-digest-configmap` writes that digest into ConfigMap `digest-<mosb>` (key `digest`), as `oc create
 *    configmap … --from-file=digest=…` does.
 * What the engine builds is the stored Containerfile played on the stand-in OS (build-context.ts).
 */
import { gunzipSync } from 'node:zlib';
import type { KubeClient, KubeObject } from '../../../lib/kube/client.js';
import { buildImage, removeImage } from '../../../lib/oci/build.js';
import { parseDockerConfig } from '../../../lib/oci/credentials.js';
import { connectEngine, identifyEngine, type Engine } from '../../../lib/oci/engine.js';
import { pushImage } from '../../../lib/oci/push.js';
import { MCO_NAMESPACE } from '../../constants.js';
import type { ContainerRun, PodProgram, PodPrograms } from '../../kubelet/pod-programs.js';
import { SUPPORTED_EXTENSIONS } from '../../mcd/node-config.js';
import type { MachineConfig } from '../types.js';
import { inputsFromStored, playableBuild } from './build-context.js';
import { followMirrors } from './build-mirrors.js';
import { BUILD_PROGRAM, ENV } from './build-job.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Secret extends KubeObject {
  data?: Record<string, string>;
}

export interface BuildProgramDeps {
  /** The connection the program reads the build's ConfigMaps and Secrets with and writes the digest ConfigMap. */
  client: KubeClient;
  /** CAs to trust when reading the pushed digest back from the registry (the reference registry's). */
  caPems: string[];
  /** How the program finds an engine; default connectEngine (DOCKER_HOST, podman sockets, docker.sock). */
  connect?: () => Promise<Engine>;
  /** Where a pull of an image is served from, as the nodes pull it (the mirror sets); default: the image itself. */
  pullSource?: (ref: string) => Promise<string>;
}

const envOf = (run: ContainerRun, name: string): string => run.container.env?.find((e) => e.name === name)?.value ?? '';

/** A failure the container reports in its log before exiting 1 (no stack: the text is for a person). */
class BuildFailure extends Error {}

/** A pull no mirror and no source serves fails the build before any step, in the node's words. */
function failedPull(error: unknown): never {
  throw new BuildFailure(`pulling the build's images: ${(error as Error).message}`);
}

async function configMapData(client: KubeClient, name: string): Promise<Record<string, string>> {
  const cm = await client.get<ConfigMap>('ConfigMap', name, MCO_NAMESPACE);
  if (!cm) throw new BuildFailure(`configmaps "${name}" not found`);
  return cm.data ?? {};
}

async function dockerConfigOf(client: KubeClient, name: string): Promise<string> {
  const secret = await client.get<Secret>('Secret', name, MCO_NAMESPACE);
  const data = secret?.data?.['.dockerconfigjson'];
  if (!data) throw new BuildFailure(`secrets "${name}" not found or without .dockerconfigjson`);
  return Buffer.from(data, 'base64').toString('utf8');
}

/** The two containers' program; `digests` stands in for the pod's shared emptyDir, keyed by pod uid. */
export function imageBuildProgram(deps: BuildProgramDeps, digests = new Map<string, string>()): PodProgram {
  return async (run) => {
    try {
      if (run.container.name === 'image-build') return await imageBuild(deps, run, digests);
      if (run.container.name === 'create-digest-configmap') return await createDigestConfigMap(deps, run, digests);
      run.write(`${BUILD_PROGRAM}: no such container in a build pod: ${run.container.name}`);
      return 127;
    } catch (error) {
      run.write(error instanceof BuildFailure ? `error: ${error.message}` : `error: ${(error as Error).message}`);
      return 1;
    }
  };
}

async function imageBuild(deps: BuildProgramDeps, run: ContainerRun, digests: Map<string, string>): Promise<number> {
  const tag = envOf(run, ENV.tag);
  const baseOSImage = envOf(run, ENV.baseImage);
  const extensionsImage = envOf(run, ENV.extensionsImage);
  const stored = (await configMapData(deps.client, envOf(run, ENV.containerfileConfigMap))).Containerfile ?? '';
  const archive = (await configMapData(deps.client, envOf(run, ENV.machineConfigConfigMap)))['machineconfig.json.gz'] ?? '';
  const mc = JSON.parse(gunzipSync(new Uint8Array(Buffer.from(archive, 'base64'))).toString('utf8')) as MachineConfig;
  const pull = parseDockerConfig(await dockerConfigOf(deps.client, envOf(run, ENV.baseCreds)), 'base image pull secret');
  const push = parseDockerConfig(await dockerConfigOf(deps.client, envOf(run, ENV.finalCreds)), 'final image push secret');
  let engine: Engine;
  try {
    engine = await (deps.connect ?? (() => connectEngine()))();
  } catch (error) {
    // the real pod runs buildah itself; the reference builds with the machine's engine, and says what it lacks
    throw new BuildFailure(`cannot build ${tag}: the reference builds images with the machine's container engine, and ${(error as Error).message}`);
  }
  const inputs = inputsFromStored(stored, mc, { baseOSImage, extensionsImage }, (ext) => SUPPORTED_EXTENSIONS[ext] ?? [ext]);
  const playable = playableBuild(inputs, mc);
  run.write(`Building ${tag} FROM ${baseOSImage} with ${(await identifyEngine(engine)).name}`);
  const containerfile = deps.pullSource ? await followMirrors(playable.containerfile, deps.pullSource, (line) => run.write(line)).catch(failedPull) : playable.containerfile;
  const files = playable.files;
  await buildImage(engine, { files: { ...files, Containerfile: containerfile }, tag, registryConfig: pull, onOutput: (line) => run.write(line), pull: true, timeoutMs: 10 * 60_000 });
  run.write(`Pushing ${tag}`);
  try {
    const pushed = await pushImage(engine, tag, { auth: push, caPems: deps.caPems });
    digests.set(run.pod.metadata!.uid!, pushed.digest);
    run.write(`Pushed ${pushed.pullspec}`);
  } finally {
    await removeImage(engine, tag, { keepParents: true }).catch(() => false);
  }
  return 0;
}

async function createDigestConfigMap(deps: BuildProgramDeps, run: ContainerRun, digests: Map<string, string>): Promise<number> {
  const digest = digests.get(run.pod.metadata!.uid!);
  if (!digest) throw new BuildFailure('open /tmp/done/digestfile: no such file or directory');
  const name = envOf(run, ENV.digestConfigMap);
  const labels = run.pod.metadata?.labels ?? {};
  await deps.client.create<ConfigMap>('ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: MCO_NAMESPACE, labels }, data: { digest } } as ConfigMap);
  digests.delete(run.pod.metadata!.uid!);
  run.write(`configmap/${name} created`);
  return 0;
}

/** Registers the build program under the name the build Job's pod carries. */
export function registerImageBuildProgram(programs: PodPrograms, deps: BuildProgramDeps): void {
  programs.register(BUILD_PROGRAM, imageBuildProgram(deps));
}

