import type { BackupStatus } from '../../contracts/backupValues';

export interface RetentionPolicy {
  /** Keep the newest N good backups. */
  keepLast: number | null;
  /** Keep every good backup that finished within the last D days. */
  keepDays: number | null;
}

export interface RetentionCandidate {
  id: string;
  status: BackupStatus;
  startedAt: string;
  finishedAt: string | null;
}

const dayMs = 24 * 60 * 60 * 1000;

const finishedMs = (b: RetentionCandidate) => Date.parse(b.finishedAt ?? b.startedAt);

/**
 * The backups a policy deletes now. Only succeeded backups count and only they are ever pruned
 * (a failed or corrupt record stays until someone deletes it); a backup is kept when either rule
 * keeps it; the newest good backup is always kept, whatever the policy; no policy deletes nothing.
 */
export function planRetention(backups: readonly RetentionCandidate[], policy: RetentionPolicy, now: Date): string[] {
  if (policy.keepLast === null && policy.keepDays === null) return [];
  const good = backups
    .filter((b) => b.status === 'succeeded')
    .sort((a, b) => finishedMs(b) - finishedMs(a) || (a.id < b.id ? 1 : -1));
  const kept = new Set<string>();
  if (good.length > 0) kept.add(good[0].id);
  if (policy.keepLast !== null) for (const b of good.slice(0, policy.keepLast)) kept.add(b.id);
  if (policy.keepDays !== null) {
    const since = now.getTime() - policy.keepDays * dayMs;
    for (const b of good) if (finishedMs(b) >= since) kept.add(b.id);
  }
  return good.filter((b) => !kept.has(b.id)).map((b) => b.id);
}
