/**
 * What a node's `rpm-ostree status` prints, as the host records it for the image's own rpm-ostree to read
 * (images/rhcos-like/rootfs/usr/bin/rpm-ostree reads `/run/ocp-e2e/rpm-ostree-status*` on a booted node):
 * the booted deployment first, the rollback one after it.
 */
import { rpmOstreeStatusJson, type BootedImage } from '../mcd/os-status.js';

/** The record's files: `rpm-ostree status` and `--json`, each also `--booted` (the booted deployment alone). */
export function rpmOstreeStatusFiles(booted: BootedImage, previous: BootedImage | undefined): Record<string, string> {
  const all = rpmOstreeStatus(booted, previous);
  const alone = rpmOstreeStatus(booted, undefined);
  return { 'rpm-ostree-status.json': all.json, 'rpm-ostree-status.txt': all.text, 'rpm-ostree-status-booted.json': alone.json, 'rpm-ostree-status-booted.txt': alone.text };
}

function rpmOstreeStatus(booted: BootedImage, previous: BootedImage | undefined): { json: string; text: string } {
  const status = JSON.parse(rpmOstreeStatusJson(booted, previous)) as { deployments: Array<Record<string, unknown>> };
  const lines = ['State: idle', 'Deployments:'];
  status.deployments.forEach((d, i) => {
    const when = new Date(Number(d.timestamp) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    if (i > 0) lines.push('');
    lines.push(`${d.booted ? '*' : ' '} ${String(d['container-image-reference'])}`);
    lines.push(`                   Digest: ${String(d['container-image-reference-digest'])}`);
    lines.push(`                  Version: ${String(d.version)} (${when})`);
  });
  return { json: `${JSON.stringify(status, null, 2)}\n`, text: `${lines.join('\n')}\n` };
}
