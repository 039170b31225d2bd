import type { Client } from 'pg';
import type { InstanceRuntime } from '../engines/engine';
import { pgSuperuserTarget } from '../engines/pg';
import { connect } from '../engines/pgBackup';
import type { MetricValues } from './series';

// PostgreSQL's figures, read over the control plane's superuser connection (kept open between
// samples so a sample costs one round trip, not a sign-in) with a short statement timeout.

export const pgStatementTimeoutMs = 2000;

/** One round trip. Counters are cumulative; the sampler turns them into rates. Our own backend is left out. */
const sampleSql = `
with clients as (
  select state, xact_start from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()
), db as (
  select sum(xact_commit + xact_rollback) as xacts, sum(blks_hit) as hit, sum(blks_read) as read,
         sum(temp_bytes) as temp, sum(deadlocks) as deadlocks
    from pg_stat_database
)
select
  (select count(*) from clients where state = 'active') as active,
  (select count(*) from clients where state = 'idle') as idle,
  (select count(*) from clients where state like 'idle in transaction%') as idle_in_tx,
  (select count(*) from clients) as total,
  current_setting('max_connections')::int as max_connections,
  db.xacts, db.hit, db.read, db.temp, db.deadlocks,
  (select sum(pg_database_size(oid)) from pg_database) as database_bytes,
  coalesce((select extract(epoch from now() - min(xact_start)) from clients), 0) as longest_tx_seconds,
  case when pg_is_in_recovery() then null else pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') end as wal,
  (select max(pg_wal_lsn_diff(sent_lsn, replay_lsn)) from pg_stat_replication) as replication_lag_bytes,
  (select extract(epoch from max(replay_lag))::float8 from pg_stat_replication) as replication_lag_seconds,
  (select count(*) from pg_stat_replication where state = 'streaming') as replicas
from db`;

interface Counters {
  at: number;
  xacts: number;
  hit: number;
  read: number;
  temp: number;
  deadlocks: number;
  wal: number | null;
}

type Row = Record<string, string | number | null>;
const num = (value: string | number | null | undefined) => (value === null || value === undefined ? null : Number(value));

/** Per-second rate of a counter; none when it went back (a stats reset or a restart). */
function rate(previous: number | null, current: number | null, seconds: number): number | undefined {
  if (previous === null || current === null || current < previous || seconds <= 0) return undefined;
  return (current - previous) / seconds;
}

export class PgSampler {
  private client: Client | null = null;
  private previous: Counters | null = null;

  constructor(private readonly rt: InstanceRuntime) {}

  async sample(at: number): Promise<MetricValues> {
    try {
      this.client ??= await connect(pgSuperuserTarget(this.rt), 'postgres', pgStatementTimeoutMs);
      const row = (await this.client.query<Row>(sampleSql)).rows[0];
      return this.values(row, at);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private values(row: Row, at: number): MetricValues {
    const counters: Counters = {
      at,
      xacts: Number(row.xacts),
      hit: Number(row.hit),
      read: Number(row.read),
      temp: Number(row.temp),
      deadlocks: Number(row.deadlocks),
      wal: num(row.wal),
    };
    const values: MetricValues = {
      connections_active: Number(row.active),
      connections_idle: Number(row.idle),
      connections_idle_in_tx: Number(row.idle_in_tx),
      connections_total: Number(row.total),
      max_connections: Number(row.max_connections),
      database_bytes: Number(row.database_bytes),
      longest_tx_seconds: Number(row.longest_tx_seconds),
    };
    const lag = num(row.replication_lag_bytes);
    if (lag !== null) values.replication_lag_bytes = lag;
    // PostgreSQL forgets a replica's lag in time once it has nothing left to replay: 0 s then.
    const lagSeconds = num(row.replication_lag_seconds) ?? (lag === 0 ? 0 : null);
    if (lagSeconds !== null) values.replication_lag_seconds = lagSeconds;
    // The member count of a cluster that serves: its leader and the replicas streaming from it.
    if (this.rt.cluster) values.members_streaming = 1 + Number(row.replicas);
    const previous = this.previous;
    this.previous = counters;
    if (!previous) return values;
    const seconds = (at - previous.at) / 1000;
    const rates = {
      tps: rate(previous.xacts, counters.xacts, seconds),
      temp_bytes: rate(previous.temp, counters.temp, seconds),
      deadlocks: rate(previous.deadlocks, counters.deadlocks, seconds),
      wal_bytes_per_s: rate(previous.wal, counters.wal, seconds),
    };
    for (const [name, value] of Object.entries(rates)) if (value !== undefined) values[name as keyof typeof rates] = value;
    const hit = counters.hit - previous.hit;
    const read = counters.read - previous.read;
    if (hit >= 0 && read >= 0 && hit + read > 0) values.cache_hit_ratio = hit / (hit + read);
    return values;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.previous = null;
    await client?.end().catch(() => undefined);
  }
}
