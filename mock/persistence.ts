/**
 * Optional persistence (`dataDir`): an append-only log of writes, flushed to disk (fdatasync) before the write is
 * acknowledged, so anything a client was told succeeded survives `kill -9`. On open the log is replayed and then
 * rewritten as a compact snapshot (written to a temporary file and renamed, so a crash leaves one whole file).
 */
import { closeSync, existsSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from './resources.js';
import type { WriteRecord } from './store.js';

interface LogLine { op: 'put' | 'del'; k: string; rv: number; o: KubeObject }

export class WriteLog {
  private fd: number;

  private constructor(file: string) {
    this.fd = openSync(file, 'a');
  }

  /** Reads the log of a data directory (creating the directory) and returns the surviving state and the open log. */
  static open(dataDir: string): { log: WriteLog; records: WriteRecord[] } {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'objects.log');
    const latest = new Map<string, WriteRecord>();
    let maxRv = 0;
    if (existsSync(file)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const [i, line] of lines.entries()) {
        if (!line.trim()) continue;
        let rec: LogLine;
        try {
          rec = JSON.parse(line);
        } catch {
          // Only the very last line can be torn (a crash in the middle of a write that was never acknowledged).
          if (i >= lines.length - 2) break;
          throw new Error(`data dir ${dataDir}: ${file} line ${i + 1} is corrupt; move the file away to start empty`);
        }
        const key = `${rec.k}|${rec.o.metadata.namespace ?? ''}|${rec.o.metadata.name}`;
        maxRv = Math.max(maxRv, rec.rv);
        if (rec.op === 'put') latest.set(key, { op: 'put', storageKey: rec.k, obj: rec.o, rv: rec.rv });
        else latest.delete(key);
      }
    }
    const records = [...latest.values()].sort((a, b) => a.rv - b.rv);
    // Compact: one line per living object, plus a marker that keeps the highest resourceVersion ever given out.
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    for (const r of records) writeSync(fd, JSON.stringify({ op: 'put', k: r.storageKey, rv: r.rv, o: r.obj }) + '\n');
    if (maxRv > (records[records.length - 1]?.rv ?? 0)) {
      writeSync(fd, JSON.stringify({ op: 'del', k: '', rv: maxRv, o: { metadata: { name: '' } } }) + '\n');
    }
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, file);
    if (maxRv > (records[records.length - 1]?.rv ?? 0)) {
      records.push({ op: 'del', storageKey: '', rv: maxRv, obj: { metadata: { name: '' } } });
    }
    return { log: new WriteLog(file), records };
  }

  append(w: WriteRecord): void {
    writeSync(this.fd, JSON.stringify({ op: w.op, k: w.storageKey, rv: w.rv, o: w.obj }) + '\n');
    fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
