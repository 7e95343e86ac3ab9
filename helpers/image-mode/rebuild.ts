/**
 * Building a pool's image again without a config change (QE 77781): the `machineconfiguration.openshift.io/rebuild`
 * annotation on the MachineOSConfig. On every release with the v1 API (MCO release-4.18 to release-4.22
 * pkg/controller/build/reconciler.go `rebuildMachineOSConfig`, `createNewMachineOSBuildForRebuild`) the build
 * controller deletes the MachineOSConfig's current MachineOSBuild and makes it again under the same name (the name
 * hashes the pool's config, which did not change), builds and pushes a new image, and removes the annotation once the
 * new build has started (`updateMachineOSConfigStatus`). The pool then rolls out the new image.
 */
import { expect } from 'chai';
import type { FlowSession } from '../flows.js';
import { attachYaml, parameter, step } from '../report.js';
import { readMachineOSConfig, type ImageModePool, type RolledOutBuild } from './flow.js';

export const REBUILD_ANNOTATION = 'machineconfiguration.openshift.io/rebuild';

/** Puts the rebuild annotation on the pool's MachineOSConfig (its value is not read: upstream looks for the key). */
export async function requestRebuild(session: FlowSession, mode: ImageModePool): Promise<void> {
  await step(`annotate machineosconfig/${mode.machineOSConfig} with ${REBUILD_ANNOTATION}`, async () => {
    await session.cluster.client.patch('MachineOSConfig', mode.machineOSConfig, { metadata: { annotations: { [REBUILD_ANNOTATION]: '' } } });
  });
}

/**
 * The rebuild did what upstream does: the build of the same rendered config came back under the same name as a new
 * object (another uid) with a new image, and the MCO took the annotation away.
 */
export async function checkRebuilt(session: FlowSession, mode: ImageModePool, before: RolledOutBuild, after: RolledOutBuild): Promise<void> {
  const name = before.build.metadata.name ?? '?';
  await step(`machineosbuild/${name} was made again for ${before.rendered} and built a new image`, async () => {
    await parameter('image before', before.image);
    await parameter('image after', after.image);
    expect(after.rendered, `the rebuilt MachineOSBuild's rendered config (the pool's config did not change)`).to.equal(before.rendered);
    expect(after.build.metadata.name, `the rebuilt MachineOSBuild's name: the name hashes the pool's config, so the rebuild makes machineosbuild/${name} again`).to.equal(name);
    expect(after.build.metadata.uid, `machineosbuild/${name} uid after the rebuild (a new object, not the old build kept)`).to.not.equal(before.build.metadata.uid);
    expect(after.image, `the image of the rebuilt machineosbuild/${name}: a new build pushes a new image, not ${before.image} again`).to.not.equal(before.image);
  });
  await step(`the MCO removed ${REBUILD_ANNOTATION} from machineosconfig/${mode.machineOSConfig}`, async () => {
    const mosc = await readMachineOSConfig(session, mode.machineOSConfig);
    await attachYaml(`machineosconfig-${mode.machineOSConfig}.yaml`, mosc);
    const annotations = mosc.metadata.annotations ?? {};
    expect(Object.hasOwn(annotations, REBUILD_ANNOTATION), `machineosconfig/${mode.machineOSConfig} still has ${REBUILD_ANNOTATION}=${JSON.stringify(annotations[REBUILD_ANNOTATION])} after its new build succeeded (the build controller clears it once the build starts)`).to.equal(false);
  });
}
