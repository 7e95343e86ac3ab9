// The local base image every offline build starts FROM: a root file system made of a static busybox (Debian's
// busybox-static, /bin/busybox) for the usual commands, with Debian's dash as /bin/sh when the host has it (see
// findPosixShell), imported into the engine. No image is ever pulled. The image is tagged with a hash of its inputs,
// so a second start finds it and imports nothing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile, copyFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import type { Engine } from './engine.js';
import { ImageHelperError } from './errors.js';

export const BUSYBOX_BASE_REPOSITORY = 'localhost/ocp-e2e/busybox-base';
/** Bump when the layout below changes, so old cached images are not reused. */
const LAYOUT_VERSION = '2';

export class BaseImageMissingToolError extends ImageHelperError {}

export interface BusyboxBase {
  /** `localhost/ocp-e2e/busybox-base:<hash>` */
  tag: string;
  /** true when this call imported it, false when it was already there */
  imported: boolean;
}

function applets(busybox: string): string[] {
  return execFileSync(busybox, ['--list'], { encoding: 'utf8' })
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => /^[\w.[-]+$/.test(s) && s !== 'busybox');
}

/**
 * The shell to use as /bin/sh, with the shared libraries it needs. Busybox's own shell is built "standalone": it runs
 * its applets before looking at PATH, so its `rpm` applet would shadow the image's /usr/bin/rpm in every RUN line and
 * `sh -c`. RHCOS's /bin/sh (bash) looks PATH up; Debian's dash does too, so it is used when the host has it.
 */
export interface PosixShell {
  path: string;
  libraries: string[];
}

export function findPosixShell(candidates = ['/bin/dash', '/usr/bin/dash']): PosixShell | undefined {
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    try {
      const ldd = execFileSync('ldd', [candidate], { encoding: 'utf8' });
      const libraries = [...ldd.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
      if (libraries.every((l) => existsSync(l))) return { path: candidate, libraries };
    } catch {
      // `ldd` fails on a static binary ("not a dynamic executable"): then it needs no libraries.
      return { path: candidate, libraries: [] };
    }
  }
  return undefined;
}

/** Lays out the root file system in `dir`: /bin/busybox, a link per applet, /bin/sh, the usual directories and users. */
async function layoutRootfs(dir: string, busybox: string, appletNames: string[], shell: PosixShell | undefined): Promise<void> {
  for (const d of ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'usr/lib', 'usr/libexec', 'etc', 'root', 'var/tmp', 'tmp', 'proc', 'sys', 'dev', 'run']) {
    await mkdir(path.join(dir, d), { recursive: true });
  }
  await chmod(path.join(dir, 'tmp'), 0o1777);
  await chmod(path.join(dir, 'var/tmp'), 0o1777);
  await copyFile(busybox, path.join(dir, 'bin/busybox'));
  await chmod(path.join(dir, 'bin/busybox'), 0o755);
  for (const name of appletNames) {
    if (name.includes('/')) continue;
    if (shell && name === 'sh') continue;
    await symlink('busybox', path.join(dir, 'bin', name));
  }
  if (shell) {
    for (const file of [shell.path, ...shell.libraries]) {
      const target = path.join(dir, file);
      await mkdir(path.dirname(target), { recursive: true });
      await copyFile(file, target);
      await chmod(target, 0o755);
    }
    if (shell.path !== '/bin/sh') await symlink(path.relative('/bin', shell.path) || path.basename(shell.path), path.join(dir, 'bin/sh'));
  }
  await writeFile(path.join(dir, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n');
  await writeFile(path.join(dir, 'etc/group'), 'root:x:0:\nnobody:x:65534:\n');
}

async function imageExists(engine: Engine, name: string): Promise<boolean> {
  try {
    await engine.getImage(name).inspect();
    return true;
  } catch {
    return false;
  }
}

export interface BusyboxBaseInputs {
  tag: string;
  hash: string;
  busybox: string;
  appletNames: string[];
  shell: PosixShell | undefined;
}

/**
 * The tag the base image has for this busybox binary (a hash of the binary, its applets and our layout). Every
 * reference cluster's start asks for it, and finding the shell's libraries runs `ldd` (about 0.2 s of blocked event
 * loop on this machine), so the answer is kept, in this process and in a file under the temporary folder, for as long
 * as none of its input files changes (size, mtime, inode of busybox, the shell candidates and each library).
 */
export function busyboxBaseTag(opts: { busybox?: string } = {}): BusyboxBaseInputs {
  const busybox = opts.busybox ?? '/bin/busybox';
  const kept = memo.get(busybox) ?? readKept(busybox);
  if (kept && signatureOf(inputFiles(kept.inputs)) === kept.signature) {
    memo.set(busybox, kept);
    return kept.inputs;
  }
  const inputs = computeBusyboxBaseTag(busybox);
  const fresh: KeptInputs = { layout: LAYOUT_VERSION, inputs, signature: signatureOf(inputFiles(inputs)) };
  memo.set(busybox, fresh);
  writeKept(busybox, fresh);
  return inputs;
}

interface KeptInputs {
  layout: string;
  inputs: BusyboxBaseInputs;
  /** The stat signature of every input file when the inputs were read. */
  signature: string;
}

const memo = new Map<string, KeptInputs>();

function inputFiles(inputs: BusyboxBaseInputs): string[] {
  // the shell candidates too: a dash installed or removed since changes which shell is found
  return [inputs.busybox, '/bin/dash', '/usr/bin/dash', ...(inputs.shell ? [inputs.shell.path, ...inputs.shell.libraries] : [])];
}

function signatureOf(files: string[]): string {
  return files
    .map((file) => {
      const st = statSync(file, { throwIfNoEntry: false });
      return st ? `${file}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}` : `${file}:-`;
    })
    .join('|');
}

function keptFile(busybox: string): string {
  const user = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const key = createHash('sha256').update(busybox).digest('hex').slice(0, 12);
  return path.join(tmpdir(), `ocp-e2e-busybox-base-${user}-${key}.json`);
}

function readKept(busybox: string): KeptInputs | undefined {
  try {
    const kept = JSON.parse(readFileSync(keptFile(busybox), 'utf8')) as KeptInputs;
    return kept.layout === LAYOUT_VERSION && kept.inputs?.busybox === busybox ? kept : undefined;
  } catch {
    return undefined; // none yet, or unreadable: computed again
  }
}

function writeKept(busybox: string, kept: KeptInputs): void {
  const file = keptFile(busybox);
  const partial = `${file}.${process.pid}.partial`;
  try {
    // renamed into place whole, so a process reading at the same time sees the old file or the new one
    writeFileSync(partial, JSON.stringify(kept), { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true }); // a read-only temporary folder costs the next start the ldd again, nothing else
  }
}

function computeBusyboxBaseTag(busybox: string): BusyboxBaseInputs {
  let binary: Buffer;
  try {
    binary = readFileSync(busybox);
  } catch {
    throw new BaseImageMissingToolError(
      `${busybox} is missing: the offline base image is made from a static busybox. Install it with ` +
        '`apt-get install busybox-static` or pass the path of another static busybox.',
    );
  }
  const appletNames = applets(busybox);
  const shell = findPosixShell();
  const hash = createHash('sha256').update(LAYOUT_VERSION).update(binary as unknown as Uint8Array).update(appletNames.join(','));
  for (const file of shell ? [shell.path, ...shell.libraries] : []) hash.update(file).update(readFileSync(file) as unknown as Uint8Array);
  const short = hash.digest('hex').slice(0, 16);
  return { tag: `${BUSYBOX_BASE_REPOSITORY}:${short}`, hash: short, busybox, appletNames, shell };
}

/**
 * Makes sure the busybox base image is in the engine and returns its tag. The tag carries a hash of the busybox
 * binary and of the layout, so the image is rebuilt only when one of them changes.
 */
export async function ensureBusyboxBase(engine: Engine, opts: { busybox?: string } = {}): Promise<BusyboxBase> {
  const { tag, hash, busybox, appletNames, shell } = busyboxBaseTag(opts);
  if (await imageExists(engine, tag)) return { tag, imported: false };

  const dir = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-busybox-'));
  try {
    await layoutRootfs(dir, busybox, appletNames, shell);
    const tarStream = createTar({ cwd: dir, portable: true, noMtime: true }, ['.']);
    const stream = (await engine.importImage(tarStream as unknown as NodeJS.ReadableStream, {
      // The tag travels inside `repo`, as the docker CLI sends it: podman 4.3 ignores a separate `tag` (and tags
      // `:latest`), dockerd accepts either form.
      repo: tag,
      message: 'ocp-e2e offline base: static busybox root file system',
      changes: [
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'CMD ["/bin/sh"]',
        `LABEL ocp-e2e.io/inputs-hash=${hash}`,
      ],
    } as never)) as unknown as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) => {
      engine.modem.followProgress(stream, (err: Error | null, output: { error?: string }[]) => {
        const failed = err?.message ?? output?.find((o) => o.error)?.error;
        if (failed) reject(new ImageHelperError(`Importing the busybox base image failed: ${failed}`));
        else resolve();
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  if (!(await imageExists(engine, tag))) {
    throw new ImageHelperError(`Imported the busybox base image but ${tag} is not in the engine afterwards`);
  }
  return { tag, imported: true };
}
