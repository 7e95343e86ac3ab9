/**
 * A new Containerfile for a pool's MachineOSConfig (its spec's NoArch entry replaced), as a user fixes a failing one:
 * the MachineOSBuild's name hashes the MachineOSConfig's spec, so the build controller makes a new build (modern-mco.md
 * §2.2; reconciler.go `updateMachineOSConfig`). The ledger's undo of the MachineOSConfig (delete it, then wait for the
 * pool to leave image mode) holds whatever its spec says, so the change needs no entry of its own; it must be the
 * config this run made (or pre's run, whose objects a pipeline's post took over), which its run label says.
 */
import type { KubeObject } from '../../lib/kube/client.js';
import type { FlowSession } from '../flows.js';
import { attachYaml, step } from '../report.js';
import { RunIdLabel } from '../types.js';
import type { ImageModePool } from './flow.js';
import { machineOSConfigObject } from './machine-os-config.js';
import type { ImageModeConfig } from './types.js';

export async function replaceContainerfile(session: FlowSession, mode: ImageModePool, containerfile: string): Promise<void> {
  await step(`replace the Containerfile of machineosconfig/${mode.machineOSConfig}`, async () => {
    const current = await session.cluster.client.read<ImageModeConfig & KubeObject>('MachineOSConfig', mode.machineOSConfig);
    const owner = current.metadata.labels?.[RunIdLabel];
    // in a pipeline's post, the objects are pre's run's, which this process took over with their undo
    const ours = session.objectsRunId?.() ?? session.target.runId;
    if (owner !== ours) throw new Error(`machineosconfig/${mode.machineOSConfig} is labelled ${RunIdLabel}=${owner ?? '(none)'}, not this run's ${ours}: the suite changes only what its ledger undoes`);
    // the same object the suite made, with the new fragment (its length and FROM line checked the same way)
    const wanted = machineOSConfigObject({ pool: mode.pool, containerfile, pushSpec: mode.pushSpec, pushSecret: mode.pushSecret, runId: session.target.runId });
    const patched = await session.cluster.client.patch<ImageModeConfig & KubeObject>('MachineOSConfig', mode.machineOSConfig, { spec: { containerFile: wanted.spec!.containerFile } });
    await attachYaml(`machineosconfig-${mode.machineOSConfig}.yaml`, patched);
  });
}
