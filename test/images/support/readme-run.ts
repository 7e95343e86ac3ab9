/**
 * The image run as its users run it: images/ocp-e2e/README.md's lines, taken from the README as written, run by bash
 * as a person who is not root and owns a kubeconfig and a pull secret of mode 0600 (as `oc login`, the installer and
 * podman leave them). The files are never given to the image's own user: a line that works only for files chowned
 * to uid 1001 fails here, as it fails for everyone who copies it.
 */
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerSocketGroup, ROOT, timed, type ImageRun } from './suite-image.js';

export const IMAGE_README = join(ROOT, 'images', 'ocp-e2e', 'README.md');
export const TOP_README = join(ROOT, 'README.md');

/**
 * The commands of the first shell block after a heading, as bash reads them: continued lines joined, comments and
 * blank lines dropped.
 */
export function readmeCommands(file: string, heading: string): string[] {
  const text = readFileSync(file, 'utf8');
  const at = text.search(new RegExp(`^#+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  if (at < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = /```(?:sh|bash)?\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`${file}: no code block after "${heading}"`);
  return block[1]!
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** Every `docker run …` / `podman run …` command of a file's code blocks, continued lines joined. */
export function runLinesIn(file: string, engine: 'docker' | 'podman'): string[] {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```(?:sh|bash)?\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' '));
  return blocks.flatMap((b) => b.split('\n').map((l) => l.trim()).filter((l) => l.startsWith(`${engine} run `)));
}

/**
 * A person at a shell: a uid that is not root (4242 with a group of its own when the tests run as root, else the
 * user running them), a home folder of their own (mode 0700), and the docker socket's group, as whoever runs docker
 * without sudo has.
 */
export interface Person {
  uid: number;
  gid: number;
  home: string;
  /** Puts a copy of `from` at `~/<to>`, theirs, with `mode`. */
  keep(from: string, to: string, mode: number): string;
  /** Runs one command line with bash as them, in their home, with HOME and PATH only (plus `env`). */
  run(command: string, options?: { env?: Record<string, string>; timeoutMs?: number }): Promise<ImageRun>;
  remove(): void;
}

const PERSON_UID = 4242;

export function aPerson(): Person {
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? PERSON_UID : process.getuid!();
  const gid = asRoot ? PERSON_UID : process.getgid!();
  const home = mkdtempSync(join(tmpdir(), 'ocp-e2e-person-'));
  chmodSync(home, 0o700);
  chownSync(home, uid, gid);
  const own = (path: string, mode: number) => {
    chmodSync(path, mode);
    chownSync(path, uid, gid);
  };
  return {
    uid,
    gid,
    home,
    keep(from, to, mode) {
      const path = join(home, to);
      const parts = to.split('/').slice(0, -1);
      for (let i = 1; i <= parts.length; i++) {
        const dir = join(home, ...parts.slice(0, i));
        mkdirSync(dir, { recursive: true });
        own(dir, 0o700);
      }
      copyFileSync(from, path);
      own(path, mode);
      return path;
    },
    run(command, options = {}) {
      // setpriv (util-linux) changes to a numeric uid that needs no /etc/passwd entry, with exactly the groups given.
      const argv = asRoot
        ? ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, `--groups=${dockerSocketGroup()}`, '--', 'bash', '-c', command]
        : ['bash', '-c', command];
      return timed(argv[0]!, argv.slice(1), {
        cwd: home,
        env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
        timeoutMs: options.timeoutMs,
      });
    },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
