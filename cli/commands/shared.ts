import { InvalidArgumentError } from 'commander';
import { UsageError } from '../errors';
import type { Ctx } from '../context';
import { askLine } from '../prompt';

/** Collects repeated `k=v` arguments into a record (commander argParser for --param). */
export function collectPairs(value: string, previous: Record<string, string> = {}): Record<string, string> {
  try {
    return { ...previous, ...parsePairs([value]) };
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `name=value` words into a record; a word without `=` is a usage error. */
export function parsePairs(words: readonly string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0) throw new UsageError(`"${word}" is not name=value.`);
    pairs[word.slice(0, at)] = word.slice(at + 1);
  }
  return pairs;
}

/** A positive whole number option (commander argParser). */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of 1 or more.');
  return n;
}

/**
 * Asks a person to type the name of what is about to be destroyed; scripts pass --yes. Without a
 * terminal and without --yes nothing is destroyed.
 */
export async function confirmDestruction(ctx: Ctx, what: string, name: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) throw new UsageError(`Deleting ${what} needs --yes when not on a terminal.`);
  const typed = await askLine(`Type "${name}" to delete ${what}: `);
  if (typed !== name) throw new UsageError('Not confirmed: nothing was deleted.');
  ctx.out.note(`Deleting ${what}…`);
}

/** Options of commands that start a long operation. */
export interface WaitOptions {
  wait: boolean;
  timeout: number;
}

export const waitHelp = {
  noWait: 'answer as soon as the server accepted the operation',
  timeout: 'seconds to wait for the operation',
};
