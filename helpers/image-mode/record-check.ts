/**
 * The check phase's judgement of an image-mode pool over the upgrade's recording (recorded-builds.ts), one step per
 * fact and per hop of the upgrade: each hop was recorded on its own.
 */
import { expectFact } from '../assertions.js';
import type { CompletedUpgrade } from '../flows.js';
import { step } from '../report.js';
import { configsCameWithTheirImages, eachBuildMadeOnce, poolNeverDegraded, type RecordedPool } from './recorded-builds.js';

export async function checkImageModeRecord(upgrade: CompletedUpgrade, asked: RecordedPool): Promise<void> {
  const hops = [...(upgrade.earlierHops ?? []), upgrade];
  for (const [n, hop] of hops.entries()) {
    const of = hops.length > 1 ? ` (hop ${n + 1} of ${hops.length}, to ${hop.version})` : '';
    await step(`the recording shows every node of pool ${asked.pool} told each rendered config with its own build's image${of}`, async () => {
      expectFact(configsCameWithTheirImages(hop.recording, asked));
    });
    await step(`the recording shows each MachineOSBuild of pool ${asked.pool} made once${of}`, async () => {
      expectFact(eachBuildMadeOnce(hop.recording, asked));
    });
    await step(`the recording shows mcp/${asked.pool} with no degraded node and no failed build${of}`, async () => {
      expectFact(poolNeverDegraded(hop.recording, asked.pool));
    });
  }
}
