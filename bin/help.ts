/**
 * What `--help` tells a newcomer beyond the options: examples for the command, the exit codes, the environment
 * variables read, and for the reference the profiles and the fault names with what each breaks. One place, so the
 * commands agree.
 */
import type { Command } from 'commander';
import { FAULTS } from '../reference/faults.js';
import { DEFAULT_PROFILE, PROFILE_NAMES, PROFILES } from '../reference/profiles/index.js';

export const EXIT_CODES = ['0  everything passed (skipped specs and known issues included) / the command did its job', '1  at least one spec failed', '2  usage or environment problem (bad option or input, no container engine, a target that is not OpenShift, no results...), said in one message', '3  run --target cluster: the kubeconfig cannot be read (missing, unreadable, not YAML, no kubeconfig)', '4  run --target cluster: the kubeconfig\'s server does not answer (refused, timed out, untrusted certificate)', '5  run --target cluster: the server refused the kubeconfig\'s credentials (or may not read the cluster)', '130/143  interrupted by SIGINT/SIGTERM (what the running spec changed is undone first; on --target cluster until the pools settle back, or it prints what is left and the oc commands that undo it)'];

export const ENVIRONMENT = {
  KUBECONFIG: 'run --target cluster: the kubeconfig when --kubeconfig is not given (first path of the list), then ~/.kube/config',
  DOCKER_HOST: 'the container engine that builds and pushes layered images (unix:///path or tcp://127.0.0.1:port); default: a podman socket, then /var/run/docker.sock',
  XDG_RUNTIME_DIR: 'where the rootless podman socket is looked for ($XDG_RUNTIME_DIR/podman/podman.sock)',
  REGISTRY_AUTH_FILE: 'registry credentials when --pull-secret is not given (then $XDG_RUNTIME_DIR/containers/auth.json, ~/.config/containers/auth.json, $DOCKER_CONFIG/config.json or ~/.docker/config.json)',
  DOCKER_CONFIG: 'folder of a docker config.json holding registry credentials',
  OCP_E2E_INTERRUPT_GRACE_SECONDS: 'run: how long an interrupted spec may spend undoing what it changed before it prints what is left (default 120; 0: undo nothing, only print it)',
  OCP_E2E_NO_TIMESTAMPS: 'run: 1 leaves the console lines without the wall-clock time (UTC, 2026-12-02T03:12:45Z) they start with; the closing N passed, N failed, N skipped line never has one',
  OCP_E2E_BUILD_PLATFORMS: 'run: the platforms the engine can build layered images for (linux/amd64,linux/arm64), instead of asking it with a probe build; an architecture the nodes need and the list lacks stops the run with exit 2',
  OCP_E2E_REFERENCE_WORKDIR: 'cluster up: keep the reference registry\'s storage (its release and OS images, reused by the next start) in this folder instead of .cache/reference; the kubeconfig goes where --kubeconfig-out or --env-out say',
} as const;

/** The faults of the reference, one per line with what it breaks. */
export function faultList(indent = '  '): string {
  return Object.entries(FAULTS)
    .map(([name, fault]) => `${indent}${name.padEnd(24)} ${fault.what}`)
    .join('\n');
}

export const FAULT_NAMES = Object.keys(FAULTS);

/** What --profile says of its values: each profile with a few words, and the default, from the registry of profiles. */
export function profileChoicesText(): string {
  return `${PROFILE_NAMES.map((name) => `${name} (${PROFILES[name].summary})`).join(' or ')} (default: ${DEFAULT_PROFILE})`;
}

/** The reference's profiles, one per line: what code each stands for and the upstream commit it models. */
export function profileList(indent = '  '): string {
  const width = Math.max(...PROFILE_NAMES.map((n) => n.length)) + 1;
  return PROFILE_NAMES.map((name) => {
    const p = PROFILES[name];
    return `${indent}${name.padEnd(width)} ${p.description}; models ${p.upstream.label} ${p.upstream.commit.slice(0, 9)}${name === DEFAULT_PROFILE ? ' (default)' : ''}`;
  }).join('\n');
}

function section(title: string, lines: string[]): string {
  return `\n${title}:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

export interface HelpExtras {
  examples: string[];
  /** Environment variables this command reads (names from ENVIRONMENT). */
  environment?: (keyof typeof ENVIRONMENT)[];
  /** List the reference's faults. */
  faults?: boolean;
  /** List the reference's profiles. */
  profiles?: boolean;
  /** Exit codes differ from the suite's (e.g. a server that runs until stopped). */
  exitCodes?: string[];
}

/** Adds examples, faults, environment variables and exit codes after a command's option list. */
export function addHelpExtras(command: Command, extras: HelpExtras): Command {
  let text = section('Examples', extras.examples);
  if (extras.profiles) text += `\nProfiles (--profile, reference only):\n${profileList()}\n`;
  if (extras.faults) text += `\nFaults (--fault, reference only; repeatable or comma-separated):\n${faultList()}\n`;
  if (extras.environment?.length) text += section('Environment variables read', extras.environment.map((name) => `${name.padEnd(26)} ${ENVIRONMENT[name]}`));
  text += section('Exit codes', extras.exitCodes ?? EXIT_CODES);
  return command.addHelpText('after', text);
}
