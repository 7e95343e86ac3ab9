/**
 * Waits on the nodes of an image-mode pool, judged by the annotations the node controller and the daemon write
 * (modern-mco.md §1.7): rolled out is every node Done on the build's rendered config with desiredImage and
 * currentImage both the build's image, and the pool Updated; reverted (the MachineOSConfig deleted) is every node
 * without either annotation, and the pool Updated again. Budgets are cluster time, as every wait's.
 */
import { poolRolloutClusterMinutes } from '../capabilities.js';
import { budgetMs, type WaitContext } from '../cluster-waits.js';
import type { ClusterSnapshot } from '../cluster-watcher.js';
import { allOf, fails, holds, type Fact } from '../facts/fact.js';
import { nodeDoneOn } from '../facts/node.js';
import { nodesOfPool, poolLine, poolRolledOut } from '../facts/pool.js';
import type { Node } from '../types.js';
import { waitFor } from '../wait.js';
import { ImageAnnotations } from './types.js';

/** The node is Done on `rendered` and its desiredImage and currentImage are `image`. */
export function nodeOnImage(node: Node, rendered: string, image: string): Fact {
  const a = node.metadata?.annotations ?? {};
  const name = node.metadata?.name ?? '?';
  const desired = a[ImageAnnotations.desiredImage];
  const current = a[ImageAnnotations.currentImage];
  const onImage = desired === image && current === image ? holds(`node ${name} is on image ${image}`) : fails(`node ${name} has desiredImage ${desired ?? '(none)'} and currentImage ${current ?? '(none)'}, expected both ${image}`);
  return allOf(nodeDoneOn(node, rendered), onImage);
}

/** The node carries neither image annotation: it boots the rendered config's OS image again. */
export function nodeOffImageMode(node: Node): Fact {
  const a = node.metadata?.annotations ?? {};
  const left = [ImageAnnotations.desiredImage, ImageAnnotations.currentImage].filter((k) => a[k] !== undefined);
  const name = node.metadata?.name ?? '?';
  return left.length ? fails(`node ${name} still has ${left.map((k) => `${k.split('/')[1]}=${a[k]}`).join(', ')}`) : holds(`node ${name} has no image-mode annotation`);
}

function judgePool(snap: ClusterSnapshot, pool: string, node: (n: Node, rendered: string) => Fact): Fact {
  const p = snap.pools.get(pool);
  if (!p) return fails(`mcp/${pool} does not exist`);
  const rendered = p.spec?.configuration?.name ?? '';
  const nodes = nodesOfPool(p, snap.pools.values(), snap.nodes.values());
  if (nodes.length === 0) return fails(`mcp/${pool} has no node`);
  return allOf(...nodes.map((n) => node(n, rendered)), poolRolledOut(p));
}

function poolWaitBudget(ctx: WaitContext, pool: string): number {
  return budgetMs(ctx, poolRolloutClusterMinutes(Math.max(1, ctx.watcher.snapshot().pools.get(pool)?.status?.machineCount ?? 1)));
}

/** Waits until every node of the pool runs `image` on the pool's rendered config `rendered`, and the pool is Updated. */
export function waitForImageRollout(ctx: WaitContext, pool: string, rendered: string, image: string): Promise<ClusterSnapshot> {
  return waitFor(
    ctx.watcher,
    {
      what: `pool ${pool} to roll out image ${image}`,
      expected: `mcp/${pool} targets ${rendered} and is Updated; every node Done on ${rendered} with desiredImage = currentImage = ${image}`,
      budgetMs: poolWaitBudget(ctx, pool),
      caps: ctx.caps,
      judge: (snap) => {
        const target = snap.pools.get(pool)?.spec?.configuration?.name;
        const fact = target !== rendered ? fails(`mcp/${pool} targets ${target ?? '(nothing)'}, not ${rendered}`) : judgePool(snap, pool, (n) => nodeOnImage(n, rendered, image));
        return { done: fact.ok, progress: fact.why };
      },
      describe: (snap) => describePool(snap, pool),
    },
    ctx.progress,
  );
}

/** Waits until no node of the pool has an image annotation and the pool is Updated (the revert of image mode). */
export function waitForPoolOffImageMode(ctx: WaitContext, pool: string): Promise<ClusterSnapshot> {
  return waitFor(
    ctx.watcher,
    {
      what: `pool ${pool} to leave image mode`,
      expected: `mcp/${pool} Updated; no node with ${ImageAnnotations.desiredImage} or ${ImageAnnotations.currentImage}; every node Done on the pool's rendered config`,
      budgetMs: poolWaitBudget(ctx, pool),
      caps: ctx.caps,
      judge: (snap) => {
        const fact = judgePool(snap, pool, (n, rendered) => allOf(nodeOffImageMode(n), nodeDoneOn(n, rendered)));
        return { done: fact.ok, progress: fact.why };
      },
      describe: (snap) => describePool(snap, pool),
    },
    ctx.progress,
  );
}

/** The pool and each of its nodes with their config and image annotations: what a timeout says it last saw. */
export function describePool(snap: ClusterSnapshot, pool: string): string {
  const p = snap.pools.get(pool);
  if (!p) return `mcp/${pool} does not exist`;
  const nodes = nodesOfPool(p, snap.pools.values(), snap.nodes.values()).map((n) => {
    const a = n.metadata?.annotations ?? {};
    return `node ${n.metadata?.name}: current=${a['machineconfiguration.openshift.io/currentConfig'] ?? '-'} desired=${a['machineconfiguration.openshift.io/desiredConfig'] ?? '-'} state=${a['machineconfiguration.openshift.io/state'] ?? '-'} desiredImage=${a[ImageAnnotations.desiredImage] ?? '-'} currentImage=${a[ImageAnnotations.currentImage] ?? '-'}`;
  });
  return [`mcp/${pool} ${poolLine(p)}`, ...nodes].join('; ');
}
