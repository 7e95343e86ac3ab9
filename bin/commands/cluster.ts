import type { Command } from 'commander';

/** Placeholder until the `cluster` command lands; it registers nothing yet. */
export function register(_program: Command): void {}
