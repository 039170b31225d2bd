import type { Instance, InstanceStatus } from '../contracts/instances';
import type { ApiClient } from './api';
import { CliError } from './errors';

export const pollIntervalMs = 500;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `check` every half second until it answers a value, or fails after `timeoutSeconds`. */
export async function pollUntil<T>(what: string, timeoutSeconds: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new CliError(`Gave up waiting for ${what} after ${timeoutSeconds} s (it may still finish: check again later).`);
    await sleep(pollIntervalMs);
  }
}

/**
 * Waits for the instance's running operation to end, then checks it reached `expected`; a failed
 * operation leaves the instance elsewhere, with the engine's words in statusReason.
 */
export async function waitForInstance(api: ApiClient, id: string, expected: InstanceStatus, what: string, timeoutSeconds: number): Promise<Instance> {
  const settled = await pollUntil(what, timeoutSeconds, async () => {
    const instance = await api.get<Instance>(`/instances/${encodeURIComponent(id)}`);
    return instance.operation === null ? instance : undefined;
  });
  if (settled.status !== expected) {
    const reason = settled.statusReason ? `: ${settled.statusReason}` : '';
    throw new CliError(`${what} failed: ${settled.name} is ${settled.status}${reason}`);
  }
  return settled;
}
