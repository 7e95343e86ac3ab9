/**
 * Nodes as the machine-config daemon describes them in its annotations: which config a node runs and is moving to,
 * and what it is doing about it.
 */
import { NodeAnnotations, type Node } from '../types.js';
import { fails, holds, quote, type Fact } from './fact.js';

export type NodeActivity = 'done' | 'updating' | 'rebooting' | 'degraded' | 'waiting';

export interface NodeView {
  name: string;
  current?: string;
  desired?: string;
  state?: string;
  reason?: string;
  ready: boolean;
  activity: NodeActivity;
}

export function viewNode(node: Node): NodeView {
  const a = node.metadata?.annotations ?? {};
  const current = a[NodeAnnotations.currentConfig];
  const desired = a[NodeAnnotations.desiredConfig];
  const state = a[NodeAnnotations.state];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  let activity: NodeActivity;
  if (state === 'Degraded' || state === 'Unreconcilable') activity = 'degraded';
  else if (!ready) activity = 'rebooting';
  else if (current && desired && current !== desired) activity = state === 'Working' ? 'updating' : 'waiting';
  else if (state === 'Working') activity = 'updating';
  else activity = 'done';
  return { name: node.metadata?.name ?? '?', current, desired, state, reason: a[NodeAnnotations.reason] || undefined, ready, activity };
}

/** The daemon is Done on the rendered config: current and desired are both it. */
export function nodeDoneOn(node: Node, rendered: string): Fact {
  const n = viewNode(node);
  if (n.current === rendered && n.desired === rendered && n.state === 'Done') return holds(`node ${n.name} is Done on ${rendered}`);
  return fails(
    `node ${n.name} is on ${n.current ?? '(none)'} (desired ${n.desired ?? '(none)'}, state ${n.state ?? 'unset'}${n.reason ? `: ${quote(n.reason)}` : ''}), expected Done on ${rendered}`,
  );
}

/** One line for timelines: the fields whose changes matter for an upgrade. */
export function nodeLine(node: Node): string {
  const n = viewNode(node);
  return `current=${n.current ?? '-'} desired=${n.desired ?? '-'} state=${n.state ?? '-'} ready=${n.ready}${n.reason ? ` reason=${n.reason}` : ''}`;
}
