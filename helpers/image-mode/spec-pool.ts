/**
 * The start of an image-mode spec that needs no upgrade: its own custom pool of one worker (or the plan's), put in
 * image mode with the given Containerfile content, its first build rolled out and the pool judged on it.
 */
import type { FlowSession } from '../flows.js';
import { customPoolForSpec } from '../plan/spec-pool.js';
import type { ImageModeContent } from './content.js';
import { buildAndRollOut, putPoolInImageMode, type ImageModePool, type RolledOutBuild } from './flow.js';
import { checkImageModePool } from './pool-check.js';

export async function imageModePoolRolledOut(
  session: FlowSession,
  asked: { stem: string; caseId: string; content: ImageModeContent; base: string },
): Promise<{ mode: ImageModePool; first: RolledOutBuild }> {
  const { pool } = await customPoolForSpec(session, asked.stem);
  const mode = await putPoolInImageMode(session, { pool, caseId: asked.caseId, containerfile: asked.content.containerfile });
  const first = await buildAndRollOut(session, mode);
  await checkImageModePool(session, { pool, machineOSConfig: mode.machineOSConfig, rolledOut: first, base: asked.base, ...asked.content.checks });
  return { mode, first };
}
