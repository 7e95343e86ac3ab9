/**
 * The cluster clock's pending timers, earliest deadline first. Equal deadlines fire in the order they were set, so a
 * run is repeatable. A cancelled timer stays in the heap until it reaches the top (cancelling is frequent: every event
 * that wakes a sync loop early cancels its timer), which keeps cancel O(1).
 */
export interface ClusterTimer {
  /** Cluster ms since the epoch at which it fires. */
  readonly deadline: number;
  readonly seq: number;
  readonly fire: () => void;
  cancelled: boolean;
}

export class TimerHeap {
  private readonly items: ClusterTimer[] = [];
  private nextSeq = 0;

  add(deadline: number, fire: () => void): ClusterTimer {
    const timer: ClusterTimer = { deadline, seq: this.nextSeq++, fire, cancelled: false };
    this.items.push(timer);
    this.up(this.items.length - 1);
    return timer;
  }

  /** The earliest live timer, without removing it. */
  peek(): ClusterTimer | undefined {
    while (this.items.length && this.items[0]!.cancelled) this.pop();
    return this.items[0];
  }

  /** Removes and returns the earliest live timer whose deadline is at or before `nowMs`. */
  takeDue(nowMs: number): ClusterTimer | undefined {
    const top = this.peek();
    if (!top || top.deadline > nowMs) return undefined;
    this.pop();
    return top;
  }

  /** Live timers (for tests and diagnostics). */
  get size(): number {
    return this.items.filter((t) => !t.cancelled).length;
  }

  private pop(): void {
    const last = this.items.pop()!;
    if (this.items.length === 0) return;
    this.items[0] = last;
    this.down(0);
  }

  private before(a: ClusterTimer, b: ClusterTimer): boolean {
    return a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq);
  }

  private up(i: number): void {
    const { items } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i]!, items[parent]!)) return;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const { items } = this;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && this.before(items[left]!, items[least]!)) least = left;
      if (right < items.length && this.before(items[right]!, items[least]!)) least = right;
      if (least === i) return;
      [items[i], items[least]] = [items[least]!, items[i]!];
      i = least;
    }
  }
}
