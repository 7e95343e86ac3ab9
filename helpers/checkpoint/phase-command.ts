/**
 * The command line of a later pipeline phase over the same specs on the same cluster, as an interrupted run prints
 * it for the user to paste: one spec's (split-run.ts) or the shared upgrade's (bin/run/targets/shared-upgrade-resume.ts).
 */

/** A word as a shell reads it back unchanged: quoted when it holds anything but plain path characters. */
function shellWord(word: string): string {
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function phaseCommand(phase: 'upgrade' | 'post', where: { kubeconfigPath: string; grep?: string }): string {
  const grep = where.grep ? ` --grep ${shellWord(where.grep)}` : '';
  return `ocp-e2e run --target cluster --kubeconfig ${shellWord(where.kubeconfigPath)} --allow-disruptive --phase ${phase}${grep}`;
}
