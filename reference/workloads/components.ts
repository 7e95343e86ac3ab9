/**
 * The reference's components as OpenShift deploys them: the Deployments and the DaemonSet of
 * `openshift-machine-config-operator` and the CVO's Deployment in `openshift-cluster-version`, with the labels,
 * container names and environment of the 4.12 manifests. The pod template carries the release a component runs, so
 * a new release changes the template and rolls the pods, as on a real cluster.
 */
import type { KubeObject } from '../../lib/kube/client.js';

export const MCO_NAMESPACE = 'openshift-machine-config-operator';
export const CVO_NAMESPACE = 'openshift-cluster-version';

/** Which reference component a container runs; its log lines go to that container's log. */
export type ComponentName = 'machine-config-operator' | 'machine-config-controller' | 'machine-config-daemon' | 'cluster-version-operator' | 'machine-os-builder';

/** Annotation on a component pod naming the component its first container runs (read by the kubelet stand-in). */
export const COMPONENT_ANNOTATION = 'reference.ocp-e2e.io/component';

export interface Release {
  version: string;
  /** The release payload pullspec: the CVO runs it, and the MCO's images are named after it. */
  image: string;
}

export interface WorkloadSpec {
  kind: 'Deployment' | 'DaemonSet';
  namespace: string;
  name: string;
  component: ComponentName;
  object: KubeObject;
}

const MASTER_SELECTOR = { 'node-role.kubernetes.io/master': '' };
const MASTER_TOLERATIONS = [
  { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
];

function container(name: string, image: string, command: string[], env: Record<string, string> = {}): Record<string, unknown> {
  return {
    name,
    image,
    command,
    env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
    resources: { requests: { cpu: '20m', memory: '50Mi' } },
    terminationMessagePolicy: 'FallbackToLogsOnError',
    imagePullPolicy: 'IfNotPresent',
  };
}

function workload(kind: WorkloadSpec['kind'], namespace: string, name: string, component: ComponentName, podSpec: Record<string, unknown>, extraPodAnnotations: Record<string, string> = {}): WorkloadSpec {
  const labels = { 'k8s-app': name };
  const spec: Record<string, unknown> = {
    selector: { matchLabels: labels },
    template: {
      metadata: { labels, annotations: { [COMPONENT_ANNOTATION]: component, ...extraPodAnnotations } },
      spec: { priorityClassName: 'system-node-critical', restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...podSpec },
    },
  };
  if (kind === 'Deployment') Object.assign(spec, { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });
  else spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } };
  return {
    kind,
    namespace,
    name,
    component,
    object: {
      apiVersion: 'apps/v1',
      kind,
      metadata: { name, namespace, labels, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
      spec,
    },
  };
}

/** The operator Deployment, as the CVO applies it from the payload (RELEASE_VERSION substituted). */
export function machineConfigOperator(release: Release): WorkloadSpec {
  return workload('Deployment', MCO_NAMESPACE, 'machine-config-operator', 'machine-config-operator', {
    serviceAccountName: 'machine-config-operator',
    nodeSelector: MASTER_SELECTOR,
    tolerations: MASTER_TOLERATIONS,
    containers: [container('machine-config-operator', release.image, ['/usr/bin/machine-config-operator', 'start', '--images-json=/etc/mco/images/images.json'], { RELEASE_VERSION: release.version })],
  });
}

/** The controller Deployment, as the operator's MachineConfigController task applies it. */
export function machineConfigController(release: Release): WorkloadSpec {
  return workload('Deployment', MCO_NAMESPACE, 'machine-config-controller', 'machine-config-controller', {
    serviceAccountName: 'machine-config-controller',
    nodeSelector: MASTER_SELECTOR,
    tolerations: MASTER_TOLERATIONS,
    containers: [
      container('machine-config-controller', release.image, ['/usr/bin/machine-config-controller', 'start', '--resourcelock-namespace=openshift-machine-config-operator', '--v=2'], { RELEASE_VERSION: release.version }),
      container('oauth-proxy', release.image, ['/usr/bin/oauth-proxy', '--https-address=:9001']),
    ],
  }, { 'kubectl.kubernetes.io/default-container': 'machine-config-controller' });
}

/** The daemon DaemonSet (one pod on every node), as the operator's MachineConfigDaemon task applies it. */
export function machineConfigDaemon(release: Release): WorkloadSpec {
  return workload('DaemonSet', MCO_NAMESPACE, 'machine-config-daemon', 'machine-config-daemon', {
    serviceAccountName: 'machine-config-daemon',
    hostNetwork: true,
    hostPID: true,
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ operator: 'Exists' }],
    containers: [
      container('machine-config-daemon', release.image, ['/usr/bin/machine-config-daemon', 'start', '--payload-version=' + release.version], { NODE_NAME: '(spec.nodeName)' }),
      container('oauth-proxy', release.image, ['/usr/bin/oauth-proxy', '--https-address=:9001']),
    ],
  }, { 'kubectl.kubernetes.io/default-container': 'machine-config-daemon' });
}

/**
 * The build controller's Deployment, as the operator's MachineOSBuilder task applies it while a pool has a
 * MachineOSConfig (MCO release-4.20 manifests/machineosbuilder/deployment.yaml, pkg/operator/sync.go
 * `syncMachineOSBuilder`): the MCO image, the release in its environment as the other components'. No nodeSelector:
 * it tolerates the masters' taint and may run on any node, a worker of an image-mode pool too, so the drain of
 * whichever node it is on restarts it mid-rollout (mcd/drain-evictions.ts; OCPBUGS-58238).
 */
export function machineOsBuilder(release: Release): WorkloadSpec {
  const spec = workload('Deployment', MCO_NAMESPACE, 'machine-os-builder', 'machine-os-builder', {
    serviceAccountName: 'machine-os-builder',
    tolerations: MASTER_TOLERATIONS,
    containers: [container('machine-os-builder', release.image, ['/usr/bin/machine-os-builder', 'start', '-v4'], { RELEASE_VERSION: release.version })],
  }, { 'openshift.io/required-scc': 'anyuid' });
  const template = (spec.object.spec as { template: { spec: Record<string, unknown> } }).template;
  template.spec.priorityClassName = 'system-cluster-critical';
  return spec;
}

/** The CVO Deployment: the CVO runs the release payload image it reconciles. */
export function clusterVersionOperator(release: Release): WorkloadSpec {
  return workload('Deployment', CVO_NAMESPACE, 'cluster-version-operator', 'cluster-version-operator', {
    hostNetwork: true,
    nodeSelector: MASTER_SELECTOR,
    tolerations: MASTER_TOLERATIONS,
    containers: [container('cluster-version-operator', release.image, ['/usr/bin/cluster-version-operator', 'start', `--release-image=${release.image}`, '--v=2'], { RELEASE_IMAGE: release.image })],
  });
}
