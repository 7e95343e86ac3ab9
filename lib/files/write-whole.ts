/**
 * Writing a file that another process may read at any moment: written next to it, then renamed over it, so a reader
 * sees the old content or the new, never an empty or half-written file (rename within one folder is atomic on POSIX).
 */
import { rename, rm } from 'node:fs/promises';

/** Runs `write` on a private path beside `file`, then moves it into place; on failure nothing is left behind. */
export async function writeWhole(file: string, write: (partial: string) => Promise<void>): Promise<void> {
  // pid and a counter: two writers in one process (or two processes) never share a partial file.
  const partial = `${file}.${process.pid}.${++written}.partial`;
  try {
    await write(partial);
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
}

let written = 0;
