/**
 * What the build controller creates for one MachineOSBuild (MCO release-4.20 pkg/controller/build/buildrequest/
 * buildrequest.go `toBuildahPod`, `podToJob`, `ConfigMaps`, `Secrets`; utils/helpers.go; modern-mco.md §1.5): the
 * ephemeral ConfigMaps `containerfile-<mosb>` and `mc-<mosb>`, the Secrets `base-<mosb>` and `final-<mosb>` (the pull
 * and push secrets canonicalised to .dockerconfigjson), and the Job `build-<mosb>` (backoffLimit 3, owned by the
 * MachineOSBuild) whose pod has the initContainer `image-build` and the container `create-digest-configmap`. In the
 * reference the pod names the build program (PROGRAM_ANNOTATION), which the kubelet stand-in runs for its containers.
 */
import type { KubeObject } from '../../../lib/kube/client.js';
import { PROGRAM_ANNOTATION } from '../../kubelet/pod-programs.js';
import { MCO_NAMESPACE } from '../../constants.js';
import {
  EPHEMERAL_LABEL,
  MACHINE_OS_BUILDER,
  MOSB_LABEL,
  MOSC_LABEL,
  ON_CLUSTER_LAYERING_LABEL,
  RENDERED_MC_LABEL,
  TARGET_POOL_LABEL,
  basePullSecretName,
  buildJobName,
  containerfileConfigMapName,
  digestConfigMapName,
  finalPushSecretName,
  machineConfigConfigMapName,
} from './names.js';
import type { MachineOSBuild } from './types.js';

/** The program the build pod's containers run (registered by build-program.ts). */
export const BUILD_PROGRAM = 'machine-os-build';

/** Environment names the program reads, as upstream's buildah-build.sh and create-digest-cm.sh are given them. */
export const ENV = {
  tag: 'TAG',
  baseImage: 'BASE_OS_IMAGE_PULLSPEC',
  extensionsImage: 'BASE_OS_EXTENSIONS_IMAGE_PULLSPEC',
  digestConfigMap: 'DIGEST_CONFIGMAP_NAME',
  containerfileConfigMap: 'CONTAINERFILE_CONFIGMAP',
  machineConfigConfigMap: 'MACHINECONFIG_CONFIGMAP',
  baseCreds: 'BASE_IMAGE_PULL_SECRET',
  finalCreds: 'FINAL_IMAGE_PUSH_SECRET',
} as const;

export interface BuildJobInputs {
  mosb: MachineOSBuild;
  pool: string;
  baseOSImage: string;
  extensionsImage: string;
  /** The MCO image of the release the builder runs (the image-build container's image upstream). */
  mcoImage: string;
}

export function buildLabels(i: Pick<BuildJobInputs, 'mosb' | 'pool'>): Record<string, string> {
  return {
    [EPHEMERAL_LABEL]: '',
    [ON_CLUSTER_LAYERING_LABEL]: '',
    [MOSB_LABEL]: i.mosb.metadata.name!,
    [MOSC_LABEL]: i.mosb.spec.machineOSConfig.name,
    [TARGET_POOL_LABEL]: i.pool,
    [RENDERED_MC_LABEL]: i.mosb.spec.machineConfig.name,
  };
}

const meta = (name: string, labels: Record<string, string>) => ({ name, namespace: MCO_NAMESPACE, labels });

/** The two ephemeral ConfigMaps: the rendered Containerfile and the rendered config (gzipped, base64). */
export function ephemeralConfigMaps(i: BuildJobInputs, containerfile: string, machineConfigArchive: string): KubeObject[] {
  const labels = buildLabels(i);
  const name = i.mosb.metadata.name!;
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(containerfileConfigMapName(name), labels), data: { Containerfile: containerfile } } as KubeObject,
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(machineConfigConfigMapName(name), labels), data: { 'machineconfig.json.gz': machineConfigArchive } } as KubeObject,
  ];
}

/** The pull and push secrets as the build mounts them: `.dockerconfigjson` each. */
export function ephemeralSecrets(i: BuildJobInputs, basePullJson: string, finalPushJson: string): KubeObject[] {
  const labels = buildLabels(i);
  const name = i.mosb.metadata.name!;
  const secret = (n: string, json: string): KubeObject =>
    ({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: meta(n, labels), data: { '.dockerconfigjson': Buffer.from(json).toString('base64') } }) as KubeObject;
  return [secret(basePullSecretName(name), basePullJson), secret(finalPushSecretName(name), finalPushJson)];
}

/** The Job `build-<mosb>`. */
export function buildJob(i: BuildJobInputs): KubeObject {
  const name = i.mosb.metadata.name!;
  const labels = buildLabels(i);
  const env = (values: Record<string, string>) => Object.entries(values).map(([n, value]) => ({ name: n, value }));
  const common = { terminationMessagePolicy: 'FallbackToLogsOnError', imagePullPolicy: 'IfNotPresent' };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      ...meta(buildJobName(name), labels),
      ownerReferences: [{ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSBuild', name, uid: i.mosb.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      backoffLimit: 3,
      completions: 1,
      parallelism: 1,
      template: {
        metadata: { labels, annotations: { [PROGRAM_ANNOTATION]: BUILD_PROGRAM } },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: MACHINE_OS_BUILDER,
          initContainers: [
            {
              name: 'image-build',
              image: i.mcoImage,
              command: ['/bin/bash', '-c', '/tmp/build-script/buildah-build.sh'],
              env: env({
                [ENV.tag]: i.mosb.spec.renderedImagePushSpec,
                [ENV.baseImage]: i.baseOSImage,
                [ENV.extensionsImage]: i.extensionsImage,
                [ENV.containerfileConfigMap]: containerfileConfigMapName(name),
                [ENV.machineConfigConfigMap]: machineConfigConfigMapName(name),
                [ENV.baseCreds]: basePullSecretName(name),
                [ENV.finalCreds]: finalPushSecretName(name),
              }),
              ...common,
            },
          ],
          containers: [
            {
              name: 'create-digest-configmap',
              // the base OS image carries `oc` on 4.19-4.22 (modern-mco.md §1.5)
              image: i.baseOSImage,
              command: ['/bin/bash', '-c', '/tmp/build-script/create-digest-cm.sh'],
              env: env({ [ENV.digestConfigMap]: digestConfigMapName(name) }),
              ...common,
            },
          ],
          volumes: [
            { name: 'containerfile', configMap: { name: containerfileConfigMapName(name) } },
            { name: 'machineconfig', configMap: { name: machineConfigConfigMapName(name) } },
            { name: 'base-image-pullsecret', secret: { secretName: basePullSecretName(name) } },
            { name: 'final-image-push-creds', secret: { secretName: finalPushSecretName(name) } },
            { name: 'done', emptyDir: {} },
          ],
        },
      },
    },
  } as KubeObject;
}
