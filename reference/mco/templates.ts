/**
 * What the template controller generates for a role from the ControllerConfig (spec §3 table): `00-<role>`,
 * `01-<role>-container-runtime`, `01-<role>-kubelet` carrying the default OS image, and the generated `9x-` configs
 * the kubelet-config and container-runtime-config controllers own on a real cluster (they carry no OS image). The
 * Ignition content is a small stand-in, but it depends on the release like the real one does, so an upgrade yields
 * new rendered configs and a real rollout.
 */
import { ANN, LABEL, MC_API_VERSION } from '../constants.js';
import type { McoBehaviour, McoBuild } from '../profiles/index.js';
import { defaultOsImage } from './render.js';
import type { ControllerConfig, IgnitionConfig, MachineConfig } from './types.js';
import { semanticEqual } from '../equality.js';

export const ROLES = ['master', 'worker'] as const;

const dataUrl = (text: string): string => `data:,${encodeURIComponent(text)}`;

function ignition(files: Array<[string, string, number?]>, units: Array<[string, string]> = []): IgnitionConfig {
  const config: IgnitionConfig = {
    ignition: { version: '3.2.0' },
    storage: { files: files.map(([path, text, mode]) => ({ path, mode: mode ?? 420, overwrite: true, contents: { source: dataUrl(text) } })) },
  };
  if (units.length > 0) config.systemd = { units: units.map(([name, contents]) => ({ name, enabled: true, contents })) };
  return config;
}

export interface TemplateOptions {
  /** Fault `keep-old-os-on-upgrade`: the OS image the template MCs had before; kept instead of the new default. */
  keepOsImage?: string;
}

export function templateMachineConfigs(role: string, cc: ControllerConfig, mco: McoBehaviour, build: McoBuild, options: TemplateOptions = {}): MachineConfig[] {
  const osImageURL = options.keepOsImage || defaultOsImage(cc, mco);
  const release = cc.metadata.annotations?.[ANN.releaseImageVersion] ?? '';
  const releaseImage = cc.spec.releaseImage;
  const owner = cc.metadata.uid
    ? [{ apiVersion: MC_API_VERSION, kind: 'ControllerConfig', name: cc.metadata.name!, uid: cc.metadata.uid, controller: true, blockOwnerDeletion: true }]
    : undefined;
  const make = (name: string, config: IgnitionConfig, asked: boolean): MachineConfig => {
    // release-4.21's template render leaves the OS images out of 00-<role> (pkg/controller/template/render.go)
    const withOsImage = asked && mco.render.templatesCarryOsImage;
    const spec: MachineConfig['spec'] = { config, extensions: null, fips: false, kernelArguments: null, kernelType: '', osImageURL: withOsImage ? osImageURL : '' };
    if (mco.render.specHasExtensionsImage && withOsImage) spec.baseOSExtensionsContainerImage = cc.spec.baseOSExtensionsContainerImage ?? '';
    return {
      apiVersion: MC_API_VERSION,
      kind: 'MachineConfig',
      metadata: {
        name,
        labels: { [LABEL.role]: role },
        annotations: { [ANN.generatedByControllerVersion]: build.hash },
        ownerReferences: owner,
      },
      spec,
    };
  };
  return [
    make(
      `00-${role}`,
      ignition(
        [
          ['/etc/machine-config-daemon/release-version', `${release}\n`],
          ['/etc/kubernetes/ca.crt', '-----BEGIN CERTIFICATE-----\nreference-cluster-ca\n-----END CERTIFICATE-----\n'],
          ['/etc/sysctl.d/inotify.conf', 'fs.inotify.max_user_watches = 65536\nfs.inotify.max_user_instances = 8192\n'],
        ],
        [['machine-config-daemon-firstboot.service', '[Unit]\nDescription=Machine Config Daemon Firstboot\n[Service]\nType=oneshot\nExecStart=/usr/libexec/machine-config-daemon firstboot-complete-machineconfig\n[Install]\nWantedBy=multi-user.target\n']],
      ),
      true,
    ),
    make(
      `01-${role}-container-runtime`,
      ignition([
        ['/etc/crio/crio.conf.d/00-default', `[crio.image]\npause_image = "${releaseImage}"\n[crio.runtime]\nconmon_cgroup = "pod"\n`],
        ['/etc/containers/storage.conf', '[storage]\ndriver = "overlay"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n'],
      ]),
      true,
    ),
    make(
      `01-${role}-kubelet`,
      ignition(
        [['/etc/kubernetes/kubelet.conf', `kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nnodeLabels:\n  node-role.kubernetes.io/${role}: ""\n`]],
        [['kubelet.service', `[Unit]\nDescription=Kubernetes Kubelet\n[Service]\nExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf --node-labels=node-role.kubernetes.io/${role}\n`]],
      ),
      true,
    ),
    make(`97-${role}-generated-kubelet`, ignition([['/etc/node-sizing-enabled.env', 'NODE_SIZING_ENABLED=false\n']]), false),
    make(`98-${role}-generated-kubelet`, ignition([['/etc/kubernetes/feature-gates.conf', 'APIPriorityAndFairness=true\nDownwardAPIHugePages=true\n']]), false),
    make(`99-${role}-generated-registries`, ignition([['/etc/containers/registries.conf', 'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n']]), false),
  ];
}

/** The installer's `99-<role>-ssh`: no controller annotation, so the operator treats it like a user config. */
export function installerSshMachineConfig(role: string): MachineConfig {
  return {
    apiVersion: MC_API_VERSION,
    kind: 'MachineConfig',
    metadata: { name: `99-${role}-ssh`, labels: { [LABEL.role]: role } },
    spec: {
      config: { ignition: { version: '3.2.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOcpE2e2e reference@ocp-e2e'] }] } },
      extensions: null,
      fips: false,
      kernelArguments: null,
      kernelType: '',
      osImageURL: '',
    },
  };
}

/** Whether an existing MachineConfig needs rewriting to match a generated one. */
export function machineConfigDiffers(existing: MachineConfig, wanted: MachineConfig): boolean {
  if (!semanticEqual(existing.spec, wanted.spec)) return true;
  for (const [k, v] of Object.entries(wanted.metadata.annotations ?? {})) if (existing.metadata.annotations?.[k] !== v) return true;
  for (const [k, v] of Object.entries(wanted.metadata.labels ?? {})) if (existing.metadata.labels?.[k] !== v) return true;
  return false;
}
