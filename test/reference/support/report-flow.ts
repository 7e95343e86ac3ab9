/**
 * What the by-hand report tests across releases do between the report's own commands, as a person at a shell would:
 * build and push a layered image FROM a base, read the pools' configs, and wait with `oc get mcp` until both pools have
 * rolled out a new config.
 */
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReportSession } from './report-session.js';
import { reportDockerfile } from './report-steps.js';

/** The whitespace-separated columns of one line of `oc get` output. */
export const columns = (line: string | undefined): string[] => (line ?? '').trim().split(/\s+/);

export interface ReportFlow {
  /** `oc get mcp` until both pools are Updated, not Updating, not Degraded, on a config other than the ones given. */
  poolsUpdatedAway(before: Record<string, string>): Promise<string>;
  /** Each pool's `spec.configuration.name`. */
  poolConfigs(): Promise<Record<string, string>>;
  /** The report's Dockerfile FROM `base`, built and pushed as `image` with docker. */
  buildAndPush(base: string, image: string): Promise<void>;
}

export function reportFlow(session: ReportSession): ReportFlow {
  const sh = (command: string) => session.sh(command);
  return {
    poolsUpdatedAway: (before) =>
      session.until(
        'oc get mcp',
        (out) => {
          const rows = out.split('\n').slice(1).map(columns);
          return ['master', 'worker'].every((pool) => {
            const row = rows.find((r) => r[0] === pool);
            return Boolean(row && row[1] !== before[pool] && row[2] === 'True' && row[3] === 'False' && row[4] === 'False' && row[5] === row[7]);
          });
        },
        90_000,
      ),
    poolConfigs: async () => ({
      master: (await sh('oc get mcp master -o jsonpath={.spec.configuration.name}')).stdout,
      worker: (await sh('oc get mcp worker -o jsonpath={.spec.configuration.name}')).stdout,
    }),
    buildAndPush: async (base, image) => {
      const folder = path.join(session.dir, image.replace(/\W+/g, '-'));
      await mkdir(folder);
      await writeFile(path.join(folder, 'Dockerfile'), reportDockerfile(base));
      const r = await sh(`cd ${JSON.stringify(folder)} && docker build -t ${image} . && docker push ${image}`);
      expect(r.exitCode, r.all).to.equal(0);
    },
  };
}
