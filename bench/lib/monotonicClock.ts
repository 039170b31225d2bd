/**
 * Milliseconds on the process's monotonic clock. Unlike performance.now(), whose origin differs per
 * thread, it reads the same in a worker as in the main thread, so latencies can span both.
 */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
