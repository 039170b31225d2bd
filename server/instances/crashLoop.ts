/**
 * Restarting crashed engines, like systemd's Restart=on-failure with a start limit: the delay doubles
 * from 1 s up to a minute, and the fifth crash within ten minutes leaves the instance offline.
 */
export const crashBurst = 5;
export const crashWindowMs = 10 * 60_000;
export const crashLoopReason = `crash loop: the engine stopped ${crashBurst} times within ${crashWindowMs / 60_000} minutes; start it to try again`;
export function crashBackoffMs(crashes: number): number {
  return Math.min(1000 * 2 ** (crashes - 1), 60_000);
}

export interface CrashState {
  /** When each crash within the window was found (clock ms). */
  at: number[];
  /** When the pending start is due; null when none is pending. */
  nextStartAt: number | null;
  gaveUp: boolean;
  timer: NodeJS.Timeout | null;
}
