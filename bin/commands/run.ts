import type { Command } from 'commander';

/** Placeholder until the `run` command lands; it registers nothing yet. */
export function register(_program: Command): void {}
