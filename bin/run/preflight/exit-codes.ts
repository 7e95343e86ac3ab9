/**
 * The exit codes of `ocp-e2e run` (docs/command-line.md, "Exit codes"). 0-2 as every run; 3-5 tell apart why a cluster target
 * could not be used at all, so a CI job can say "fix the kubeconfig" rather than "the suite failed".
 */
export const EXIT = {
  passed: 0,
  failures: 1,
  /** Bad usage or input (an image, a repository, a pull secret), a machine without what the run needs, or a target that is not OpenShift. */
  usage: 2,
  /** The kubeconfig is missing, unreadable, not YAML, or no kubeconfig. */
  kubeconfig: 3,
  /** The server of the kubeconfig does not answer (refused, timed out, unknown host, untrusted certificate). */
  unreachable: 4,
  /** The server refused the kubeconfig's credentials (401), or does not let them read what the suite reads (403). */
  credentials: 5,
} as const;
