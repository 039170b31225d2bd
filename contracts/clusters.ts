import { Type, type Static } from 'typebox';

// Failover timing of a PostgreSQL cluster (DESIGN §12): Patroni's ttl, loop_wait and retry_timeout
// and HAProxy's checks, chosen together. Patroni's rule, loop_wait + 2 × retry_timeout ≤ ttl, holds in
// each; its documentation gives ttl a minimum of 20 s.

export const clusterPresetNames = ['fast', 'normal', 'safe'] as const;
export type ClusterPresetName = (typeof clusterPresetNames)[number];

export interface ClusterPreset {
  /** Seconds the leader's lock lives without renewal: a lost leader is replaced after at most this. */
  ttl: number;
  /** Seconds between Patroni's rounds. */
  loopWait: number;
  /** Seconds Patroni retries the consensus store and PostgreSQL before giving up the lead. */
  retryTimeout: number;
  /** HAProxy asks each member's Patroni this often, and takes a member out after this many failures. */
  checkIntervalMs: number;
  checkFall: number;
}

export const clusterPresets: Record<ClusterPresetName, ClusterPreset> = {
  fast: { ttl: 20, loopWait: 1, retryTimeout: 9, checkIntervalMs: 500, checkFall: 2 },
  normal: { ttl: 30, loopWait: 10, retryTimeout: 10, checkIntervalMs: 2000, checkFall: 3 },
  safe: { ttl: 60, loopWait: 10, retryTimeout: 25, checkIntervalMs: 3000, checkFall: 3 },
};

/**
 * The longest a lost leader (its host gone, so its lock is never released) leaves the read-write
 * address without a writer: the lock expires (ttl), a replica notices on its next round (loop_wait),
 * and HAProxy sees the new leader after its checks (interval × fall).
 */
export function worstCaseFailoverSeconds(preset: ClusterPreset): number {
  return preset.ttl + preset.loopWait + (preset.checkIntervalMs * preset.checkFall) / 1000;
}

/** A cluster's failover timing as configured: its preset's values and their computed worst case. */
export const ClusterTiming = Type.Object({
  preset: Type.Enum([...clusterPresetNames]),
  synchronous: Type.Boolean(),
  ttl: Type.Integer(),
  loopWait: Type.Integer(),
  retryTimeout: Type.Integer(),
  checkIntervalMs: Type.Integer(),
  checkFall: Type.Integer(),
  /** worstCaseFailoverSeconds of the preset: the longest a lost leader leaves the read-write address without a writer. */
  worstCaseSeconds: Type.Number(),
});
export type ClusterTiming = Static<typeof ClusterTiming>;

/** Members a PostgreSQL cluster may have; 1 is a single postmaster without Patroni. */
export const pgClusterSizes = [2, 3, 4, 5] as const;

export const SwitchoverRequest = Type.Object(
  {
    /** The member (its ordinal) to lead; the healthiest replica when not given. */
    candidate: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    /** When to switch over (ISO 8601, in the future); now when not given. */
    scheduledAt: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    /** Switch onto a candidate that lags behind the limit all the same. */
    force: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SwitchoverRequest = Static<typeof SwitchoverRequest>;

export const FailoverRequest = Type.Object({ candidate: Type.Integer({ minimum: 1, maximum: 5 }) }, { additionalProperties: false });
export type FailoverRequest = Static<typeof FailoverRequest>;

/** One timeline of a cluster's history, from Patroni: it began when a member was promoted. */
export const ClusterHistoryEntry = Type.Object({
  timeline: Type.Integer(),
  /** Where the previous timeline ended (a WAL position in bytes). */
  lsn: Type.Number(),
  reason: Type.String(),
  at: Type.Union([Type.String(), Type.Null()]),
  /** The member that led the new timeline, when Patroni recorded it. */
  newLeader: Type.Union([Type.String(), Type.Null()]),
  /**
   * Measured when the old leader was lost: seconds from its first failed /primary check until a
   * member passed it again, from HAProxy's log. Null for a switchover (the new leader is up before
   * the old one is down, and the old one stopped writing while it still answered /primary) and
   * when HAProxy recorded no such interval.
   */
  writeOutageSeconds: Type.Union([Type.Number(), Type.Null()]),
});
export type ClusterHistoryEntry = Static<typeof ClusterHistoryEntry>;
