/** Undo steps of a start (a cluster's, a registry's), run in reverse by stop() or by a start that failed half-way. */
export type Say = (line: string) => void;

/** A failing step is logged and the rest still run. */
export class Cleanups {
  private readonly steps: Array<() => Promise<unknown>> = [];
  constructor(private readonly say: Say) {}
  push(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step().catch((e) => this.say(`stop: ${(e as Error).message}`));
  }
}
