import type { Command } from 'commander';

/** Placeholder until the `report` command lands; it registers nothing yet. */
export function register(_program: Command): void {}
