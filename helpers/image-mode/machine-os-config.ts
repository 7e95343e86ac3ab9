/**
 * The MachineOSConfig object a spec puts on a pool (the v1 shape of the docs' example, modern-mco.md §1.4): named as
 * its pool (the CRD's CEL insists), one NoArch Containerfile (the only entry the build controller reads), the Job
 * image builder, and the push target; the base image pull secret is left to the MCO (global-pull-secret-copy).
 */
import { RunIdLabel } from '../types.js';
import { MOSC_API_VERSION, type ImageModeConfig } from './types.js';

/** The most a Containerfile entry may hold (the CRD's maxLength). */
export const CONTAINERFILE_MAX_CHARS = 4096;

export interface MachineOSConfigRequest {
  pool: string;
  /** The user's fragment, which starts `FROM configs AS final` (the template's last stage is `configs`). */
  containerfile: string;
  pushSpec: string;
  pushSecret: string;
  runId: string;
}

export function machineOSConfigObject(r: MachineOSConfigRequest): ImageModeConfig {
  if (r.containerfile.length > CONTAINERFILE_MAX_CHARS) {
    throw new Error(`the Containerfile for pool ${r.pool} has ${r.containerfile.length} characters; a MachineOSConfig's containerFile content holds at most ${CONTAINERFILE_MAX_CHARS}`);
  }
  if (!/^\s*FROM\s+configs\s+AS\s+final\b/im.test(r.containerfile)) {
    throw new Error(`the Containerfile for pool ${r.pool} does not start its stage FROM configs AS final: the MCO puts it after its own template, whose last stage is configs`);
  }
  return {
    apiVersion: MOSC_API_VERSION,
    kind: 'MachineOSConfig',
    metadata: { name: r.pool, labels: { [RunIdLabel]: r.runId } },
    spec: {
      machineConfigPool: { name: r.pool },
      imageBuilder: { imageBuilderType: 'Job' },
      containerFile: [{ containerfileArch: 'NoArch', content: r.containerfile }],
      renderedImagePushSecret: { name: r.pushSecret },
      renderedImagePushSpec: r.pushSpec,
    },
  };
}
