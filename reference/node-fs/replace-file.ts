/**
 * Writing a file a node command may be reading at that moment. `writeFile` truncates before it writes: a node command
 * that cats /run/ocp-e2e/rpm-ostree-status.json or /proc/cmdline while another command on the same node is being
 * prepared read an empty file (the daemon-exec test's rare "rpm-ostree status is not JSON: " in CI, where it reads
 * every node twice at once). The new content goes to a file of its own and is renamed over the old one, so a reader
 * sees the old content or the new, whole; and a hard link it replaces (an image tree's file) keeps the image's.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Temporary names unique within the process: two writes of one file at once must not share one. */
let written = 0;

export async function replaceFile(file: string, contents: string | Uint8Array, mode = 0o644): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const next = `${file}.new-${process.pid}-${++written}`;
  try {
    await writeFile(next, contents, { mode });
    await rename(next, file);
  } catch (error) {
    await rm(next, { force: true });
    throw error;
  }
}
