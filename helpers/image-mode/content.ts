/**
 * What the suite's image-mode specs layer in a MachineOSConfig's Containerfile (`FROM configs AS final`, then RUN
 * lines), and what every node booting the build must show for it: a file with its mode and content, an enabled unit
 * and a package of the release's extensions image. The package comes as images/layered-os/Containerfile takes it:
 * the extensions image is an rpm-md repository, copied in, installed from and removed in the same build (upstream's
 * template removes its own extensions repository before the user's part, so the fragment brings its own).
 * Written with printf, as the builder has no heredocs in every engine, and short: the CRD holds 4096 characters.
 */
import type { NodeExpectation } from '../node-probes-expected.js';

export const IMAGE_MODE_FILE = { path: '/etc/ocp-e2e/image-mode.conf', mode: 0o640, contents: 'made-by=ocp-e2e image mode\n' } as const;
export const IMAGE_MODE_UNIT = 'ocp-e2e-image-mode.service';
const UNIT_TEXT = '[Unit]\\nDescription=ocp-e2e image-mode marker\\n[Service]\\nType=oneshot\\nExecStart=/bin/true\\n[Install]\\nWantedBy=multi-user.target\\n';
const REPO_DIR = '/var/tmp/ocp-e2e-extensions';

export interface ImageModeContent {
  /** The Containerfile fragment for the MachineOSConfig. */
  containerfile: string;
  /** What each node of the pool must show for it. */
  checks: Pick<NodeExpectation, 'files' | 'units' | 'packages'>;
}

/** The fragment; `extensions` (the release's extensions image and a package of it) adds the package. */
export function imageModeContent(extensions?: { image: string; package: string }): ImageModeContent {
  const pkg = extensions
    ? [
        `printf '[ocp-e2e-extensions]\\nname=extensions of the release\\nbaseurl=file://${REPO_DIR}/\\nenabled=1\\ngpgcheck=0\\n' > /etc/yum.repos.d/ocp-e2e-extensions.repo`,
        `rpm-ostree install ${extensions.package}`,
        `rm -rf /etc/yum.repos.d/ocp-e2e-extensions.repo ${REPO_DIR}`,
      ]
    : [];
  const run = [
    ...pkg,
    `mkdir -p ${IMAGE_MODE_FILE.path.replace(/\/[^/]+$/, '')}`,
    `printf '${IMAGE_MODE_FILE.contents.replace(/\n/g, '\\n')}' > ${IMAGE_MODE_FILE.path}`,
    `chmod 0${IMAGE_MODE_FILE.mode.toString(8)} ${IMAGE_MODE_FILE.path}`,
    `printf '${UNIT_TEXT}' > /etc/systemd/system/${IMAGE_MODE_UNIT}`,
    `systemctl enable ${IMAGE_MODE_UNIT}`,
    'ostree container commit',
  ];
  const containerfile = [
    'FROM configs AS final',
    ...(extensions ? [`COPY --from=${extensions.image} /usr/share/rpm-ostree/extensions/ ${REPO_DIR}/`] : []),
    `RUN ${run.join(' && \\\n    ')}`,
    '',
  ].join('\n');
  return {
    containerfile,
    checks: {
      files: [{ ...IMAGE_MODE_FILE }],
      units: [{ name: IMAGE_MODE_UNIT, enabled: true }],
      ...(extensions ? { packages: [extensions.package] } : {}),
    },
  };
}
