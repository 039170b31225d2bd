import type { BackupStatus, BackupTrigger } from '../../contracts/backupValues';

export interface RetentionPolicy {
  /** Keep the newest N good backups among those the policy trims. */
  keepLast: number | null;
  /** Keep every good backup that finished within the last D days. */
  keepDays: number | null;
  /** Trim backups taken by hand (and before updates, for clones) too; by default only scheduled ones are. */
  includeManual?: boolean;
}

export interface RetentionCandidate {
  id: string;
  status: BackupStatus;
  trigger: BackupTrigger;
  /** A pinned backup is never trimmed. */
  pinned: boolean;
  startedAt: string;
  finishedAt: string | null;
}

const dayMs = 24 * 60 * 60 * 1000;

const finishedMs = (b: RetentionCandidate) => Date.parse(b.finishedAt ?? b.startedAt);

/**
 * The backups a policy deletes now. Only succeeded backups count and only they are ever pruned
 * (a failed or corrupt record stays until someone deletes it). A policy trims scheduled backups
 * only, unless it includes the manual ones; a pinned backup is never trimmed. Among those it
 * trims, a backup is kept when either rule keeps it; the newest good backup of all is always
 * kept, whatever the policy; no policy deletes nothing.
 */
export function planRetention(backups: readonly RetentionCandidate[], policy: RetentionPolicy, now: Date): string[] {
  if (policy.keepLast === null && policy.keepDays === null) return [];
  const good = backups
    .filter((b) => b.status === 'succeeded')
    .sort((a, b) => finishedMs(b) - finishedMs(a) || (a.id < b.id ? 1 : -1));
  const trimmed = good.filter((b) => !b.pinned && (policy.includeManual === true || b.trigger === 'schedule'));
  const kept = new Set<string>();
  if (good.length > 0) kept.add(good[0].id);
  if (policy.keepLast !== null) for (const b of trimmed.slice(0, policy.keepLast)) kept.add(b.id);
  if (policy.keepDays !== null) {
    const since = now.getTime() - policy.keepDays * dayMs;
    for (const b of trimmed) if (finishedMs(b) >= since) kept.add(b.id);
  }
  return trimmed.filter((b) => !kept.has(b.id)).map((b) => b.id);
}
