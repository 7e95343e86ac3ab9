/**
 * The mirror sets every pull and release read of the suite follows (issue 43 item 4): the files the user gave
 * (`--idms-file`, `--icsp-file`, handed to spec processes as OCP_E2E_MIRROR_FILES), else the cluster's own
 * ImageDigestMirrorSets, ImageTagMirrorSets and ImageContentSourcePolicies, so that on a disconnected cluster the suite
 * reads the payload and builds FROM the base OS image where the nodes pull them, never from quay.io.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isNotFound } from '../lib/kube/errors.js';
import type { Kind } from '../lib/kube/kinds.js';
import { mirrorRulesFromYaml, mirrorRulesOf, MirrorSetError, MirrorSets } from '../lib/oci/mirrors.js';
import type { Cluster } from './cluster.js';

/** Absolute paths of the user's mirror-set files, comma-separated. */
export const MIRROR_FILES_ENV = 'OCP_E2E_MIRROR_FILES';

const KINDS: Kind[] = ['ImageDigestMirrorSet', 'ImageTagMirrorSet', 'ImageContentSourcePolicy'];

/**
 * The mirror sets of files given by the user: `idms` files may hold ImageDigestMirrorSets and ImageTagMirrorSets (as
 * oc-mirror writes them), `icsp` files ImageContentSourcePolicies. A file that cannot be read or holds anything else
 * is a MirrorSetError naming it.
 */
export function mirrorSetsFromFiles(files: { idms?: string[]; icsp?: string[] }): MirrorSets {
  let sets = MirrorSets.none;
  const read = (file: string, flag: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new MirrorSetError(`${flag} ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  for (const file of files.idms ?? []) sets = sets.plus(mirrorRulesFromYaml(read(file, '--idms-file'), `--idms-file ${file}`, ['digest', 'tag']));
  for (const file of files.icsp ?? []) sets = sets.plus(mirrorRulesFromYaml(read(file, '--icsp-file'), `--icsp-file ${file}`, ['icsp']));
  return sets;
}

/** The files a spec process was handed, whichever kind each holds. */
function filesOfEnv(env: NodeJS.ProcessEnv): string[] {
  return (env[MIRROR_FILES_ENV] ?? '').split(',').map((f) => f.trim()).filter(Boolean);
}

const known = new WeakMap<Cluster, Promise<MirrorSets>>();

/**
 * The mirror sets of this run: the user's files when given (default: those handed to this spec process), else the
 * cluster's (read once per connection).
 */
export function suiteMirrorSets(cluster: Cluster, files: string[] = filesOfEnv(process.env)): Promise<MirrorSets> {
  let sets = known.get(cluster);
  if (!sets) {
    // the run checked each file's kinds against its flag; here any mirror-set kind is read
    sets = files.length ? Promise.resolve(files.reduce((all, f) => all.plus(mirrorRulesFromYaml(readFileSync(f, 'utf8'), f, ['digest', 'tag', 'icsp'])), MirrorSets.none)) : clusterMirrorSets(cluster);
    sets.catch(() => known.delete(cluster));
    known.set(cluster, sets);
  }
  return sets;
}

/** What the cluster holds of each kind; a kind the release does not serve (IDMS before 4.13) reads as none. */
async function clusterMirrorSets(cluster: Cluster): Promise<MirrorSets> {
  const objects: unknown[] = [];
  for (const kind of KINDS) {
    try {
      objects.push(...(await cluster.client.list(kind)).items);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return mirrorRulesOf(objects, 'the cluster');
}

/**
 * Runs `use` with an ImageContentSourcePolicy file of the mirror sets' digest rules, what `oc adm release info
 * --icsp-file` reads (oc 4.12 has no --idms-file); undefined when there are none. The file is removed afterwards.
 */
export async function withIcspFile<T>(sets: MirrorSets, use: (file: string | undefined) => Promise<T>): Promise<T> {
  if (!sets.rules.some((r) => r.pulls === 'digest')) return use(undefined);
  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-icsp-'));
  try {
    const file = path.join(dir, 'icsp.yaml');
    await writeFile(file, sets.toIcspYaml(), { mode: 0o600 });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
