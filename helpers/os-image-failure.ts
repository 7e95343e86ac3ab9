/**
 * Which class of failure kept a node from a custom OS image (facts/os-image-failure.ts), read where the cluster's
 * release says it: the node's reason, and on 4.16-4.21, whose reason keeps only the retry loop's timeout, the
 * daemon's log on that node.
 */
import type { DegradedNode } from './facts/diagnoses.js';
import { osImageFailureClassInDaemonLog, readOsImageFailure, type OsImageFailureClass } from './facts/os-image-failure.js';
import type { FlowSession } from './flows.js';
import { readDaemonLogOn } from './pod-logs.js';
import { attachText } from './report.js';

export interface OsImageFailureFinding {
  /** Undefined when neither the reason nor the log shows a class, or the reason is no failed move to the image. */
  class?: OsImageFailureClass;
  /** Where the class was read, for the spec's message. */
  from: string;
}

export async function osImageFailureOf(session: FlowSession, node: DegradedNode, image: string): Promise<OsImageFailureFinding> {
  const release = session.release();
  const reason = node.reason ?? '';
  const reading = readOsImageFailure(reason, image, release);
  const named = `OpenShift ${release.rules.release} (${release.version})${release.vouched ? '' : ', read tolerantly'}`;
  if (!reading) return { from: `node ${node.name}'s reason, which is no failed update to ${image} in the words of ${named}: ${reason}` };
  if (reading.class) return { class: reading.class, from: `node ${node.name}'s reason (${reading.wording} wording of ${named}): ${reason}` };
  const log = await readDaemonLogOn(session.cluster.kubeConfig, node.name);
  await attachText(`machine-config-daemon log on ${node.name}`, log);
  const cls = osImageFailureClassInDaemonLog(log, image);
  return {
    ...(cls ? { class: cls } : {}),
    from: `the machine-config daemon's log on node ${node.name} (${named} keeps only the retry timeout in the reason: ${reason})`,
  };
}
