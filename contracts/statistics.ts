import { Type, type Static } from 'typebox';
import { healthLevels, instanceStatuses, instanceTypes } from './instanceValues';

// GET /api/statistics, StatisticsChanged, GET /instances/{id}/metrics and MetricsAppended (DESIGN §8, §10).

const countsOf = <const T extends string>(keys: readonly T[]) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer()])) as Record<T, ReturnType<typeof Type.Integer>>);

/**
 * The caller's figures. A regular user counts only what belongs to their groups: their groups'
 * instances, those instances' backups and log entries; `groups` is the number of groups they are a
 * member of and `users` the number of distinct members of those groups (themselves among them).
 * Admins count everything, the control plane's own log entries included. Every key of
 * byStatus, byType and byHealth is always present (0 when none).
 */
export const Statistics = Type.Object({
  instances: Type.Object({
    total: Type.Integer(),
    byStatus: countsOf(instanceStatuses),
    byType: countsOf(instanceTypes),
    byHealth: countsOf(healthLevels),
    /** Sum of the instances' data folder sizes, as last measured (an extension of DESIGN §10). */
    sizeBytes: Type.Number(),
    /** Instances of more than one member (etcd clusters, PostgreSQL clusters on Patroni). */
    clusters: Type.Integer(),
    /** Members of every instance: a single server counts one, a cluster each of its members. */
    members: Type.Integer(),
  }),
  backups: Type.Object({
    total: Type.Integer(),
    /** Backups that failed in the last 24 hours. */
    failed24h: Type.Integer(),
    /** Bytes of the kept backup files. */
    storageBytes: Type.Number(),
    lastSucceededAt: Type.Union([Type.String(), Type.Null()]),
  }),
  groups: Type.Integer(),
  users: Type.Integer(),
  logs: Type.Object({
    entries: Type.Integer(),
    bytes: Type.Number(),
    /** Entries at level error or fatal in the last 24 hours. */
    errors24h: Type.Integer(),
  }),
  /** Instances with an operation under way (create, start, backup …). */
  operationsRunning: Type.Integer(),
  generatedAt: Type.String(),
});
export type Statistics = Static<typeof Statistics>;

/**
 * GET /api/statistics?groupId=: the same figures narrowed to one group (what a group page shows as
 * its totals: instances.total, instances.byStatus.running, instances.sizeBytes). A group the
 * caller may not see answers 404. StatisticsChanged always carries the unfiltered figures, so a
 * page showing a group's figures refetches them when it arrives.
 */
export const StatisticsQuery = Type.Object(
  { groupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);
export type StatisticsQuery = Static<typeof StatisticsQuery>;

/**
 * StatisticsChanged carries the receiver's Statistics. It is pushed to every signed-in
 * connection (no group to join) when that receiver's figures change, at most once a second.
 */
export type StatisticsChangedPayload = Statistics;

// ---- Metrics ----

/**
 * Units of the metric series. Counters are stored as rates over the sampling interval
 * (`per_s`, `bytes_per_s`); `ratio` is 0–1; `percent` is of one core (a busy 2-core process shows 200).
 */
export const metricUnits = ['count', 'bytes', 'bytes_per_s', 'per_s', 'ratio', 'percent', 'seconds'] as const;
export type MetricUnit = (typeof metricUnits)[number];

/** Every metric the collector samples, with its unit and the engines that have it. */
export const metricDefinitions = [
  { name: 'connections_active', unit: 'count', engines: ['pg'] },
  { name: 'connections_idle', unit: 'count', engines: ['pg'] },
  { name: 'connections_idle_in_tx', unit: 'count', engines: ['pg'] },
  { name: 'connections_total', unit: 'count', engines: ['pg'] },
  { name: 'max_connections', unit: 'count', engines: ['pg'] },
  /** Commits plus rollbacks per second, all databases. */
  { name: 'tps', unit: 'per_s', engines: ['pg'] },
  /** blks_hit / (blks_hit + blks_read) over the interval; absent when nothing was read. */
  { name: 'cache_hit_ratio', unit: 'ratio', engines: ['pg'] },
  /** Sum of every database's size. */
  { name: 'database_bytes', unit: 'bytes', engines: ['pg'] },
  { name: 'temp_bytes', unit: 'bytes_per_s', engines: ['pg'] },
  { name: 'deadlocks', unit: 'per_s', engines: ['pg'] },
  /** Age of the oldest open transaction (0 when none). */
  { name: 'longest_tx_seconds', unit: 'seconds', engines: ['pg'] },
  { name: 'wal_bytes_per_s', unit: 'bytes_per_s', engines: ['pg'] },
  /** Largest replay lag among replicas; absent when the instance has none. */
  { name: 'replication_lag_bytes', unit: 'bytes', engines: ['pg'] },
  { name: 'db_size_bytes', unit: 'bytes', engines: ['etcd'] },
  { name: 'db_in_use_bytes', unit: 'bytes', engines: ['etcd'] },
  { name: 'keys', unit: 'count', engines: ['etcd'] },
  { name: 'proposals_committed', unit: 'per_s', engines: ['etcd'] },
  { name: 'proposals_failed', unit: 'per_s', engines: ['etcd'] },
  /** Leader changes seen since the member started. */
  { name: 'leader_changes', unit: 'count', engines: ['etcd'] },
  /** gRPC requests handled per second. */
  { name: 'requests_per_s', unit: 'per_s', engines: ['etcd'] },
  /** CPU of the instance's process tree, percent of one core. */
  { name: 'cpu_percent', unit: 'percent', engines: ['pg', 'etcd'] },
  /** Resident memory of the process tree. */
  { name: 'rss_bytes', unit: 'bytes', engines: ['pg', 'etcd'] },
  /** Size of the instance's data folder (refreshed about once a minute); also the list's sizeBytes. */
  { name: 'data_dir_bytes', unit: 'bytes', engines: ['pg', 'etcd'] },
  // Appended, never inserted: stored samples are packed in this order (server/metrics/series.ts).
  /** The same replay lag in time (PostgreSQL's replay_lag; 0 for a replica with nothing to replay). */
  { name: 'replication_lag_seconds', unit: 'seconds', engines: ['pg'] },
  /** A cluster's leader and the replicas streaming from it; absent for a single server. */
  { name: 'members_streaming', unit: 'count', engines: ['pg'] },
] as const satisfies readonly { name: string; unit: MetricUnit; engines: readonly ('pg' | 'etcd')[] }[];

export type MetricName = (typeof metricDefinitions)[number]['name'];
export const metricNames = metricDefinitions.map((metric) => metric.name) as MetricName[];
export const metricUnitOf = Object.fromEntries(metricDefinitions.map((metric) => [metric.name, metric.unit])) as Record<
  MetricName,
  MetricUnit
>;

/** Resolutions the store keeps, finest first, and how long each is kept. */
export const metricResolutions = [
  { stepMs: 10_000, keepMs: 24 * 3_600_000 },
  { stepMs: 60_000, keepMs: 14 * 86_400_000 },
  { stepMs: 3_600_000, keepMs: 180 * 86_400_000 },
] as const;
export const maxMetricsRangeMs = 180 * 86_400_000;

const metricNamePattern = `(${metricDefinitions.map((metric) => metric.name).join('|')})`;

/**
 * GET /instances/{id}/metrics. `to` defaults to now, `from` to an hour before `to`; from < to and
 * the range is at most 180 days. The server picks the finest resolution still kept for `from`
 * that gives at most about 1500 points; a larger `step` (ms) averages into buckets of that size.
 * `names` (comma list) narrows the series; by default every metric of the instance's engine.
 */
export const MetricsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
    to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
    step: Type.Optional(Type.Integer({ minimum: 10_000, maximum: 86_400_000 })),
    names: Type.Optional(Type.String({ pattern: `^${metricNamePattern}(,${metricNamePattern})*$`, maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type MetricsQuery = Static<typeof MetricsQuery>;

/** One series: points are [epoch ms, value], oldest first; a gap in sampling is a gap in points. */
export const MetricSeries = Type.Object({
  name: Type.String(),
  unit: Type.String(),
  points: Type.Array(Type.Tuple([Type.Number(), Type.Number()])),
});
export type MetricSeries = Static<typeof MetricSeries> & { name: MetricName; unit: MetricUnit };

/** `step` is the spacing of the points in ms; `from` and `to` (epoch ms) the range answered. */
export const MetricsResponse = Type.Object({
  series: Type.Array(MetricSeries),
  step: Type.Integer(),
  from: Type.Number(),
  to: Type.Number(),
});
export type MetricsResponse = Omit<Static<typeof MetricsResponse>, 'series'> & { series: MetricSeries[] };

/** How many instances one GET /instances/sparklines may name: a list page's rows, with room to spare. */
export const maxSparklineIds = 200;

/**
 * GET /instances/sparklines: one metric of many instances over the last hour, a point a minute,
 * for a list's rows in one request. `ids` is a comma list of at most 200 instance ids.
 */
export const SparklinesQuery = Type.Object(
  {
    ids: Type.String({ pattern: `^[\\w-]{1,64}(,[\\w-]{1,64}){0,${maxSparklineIds - 1}}$`, maxLength: maxSparklineIds * 65 }),
    name: Type.Union(metricNames.map((name) => Type.Literal(name))),
  },
  { additionalProperties: false },
);
// Spelled out: the union built from metricNames is too wide for Static to narrow.
export type SparklinesQuery = { ids: string; name: MetricName };

/**
 * One item per named instance the caller may see (an id they may not see, or that names nothing,
 * is absent, so the answer tells nothing about it); `points` as in MetricSeries, at most 60,
 * `step` apart (one minute), between `from` and `to` (epoch ms); empty before the first sample.
 */
export const SparklinesResponse = Type.Object({
  name: Type.String(),
  unit: Type.String(),
  step: Type.Integer(),
  from: Type.Number(),
  to: Type.Number(),
  items: Type.Array(Type.Object({ instanceId: Type.String(), points: Type.Array(Type.Tuple([Type.Number(), Type.Number()])) })),
});
export type SparklinesResponse = Omit<Static<typeof SparklinesResponse>, 'name' | 'unit'> & { name: MetricName; unit: MetricUnit };

/**
 * MetricsAppended, pushed to JoinInstance(id) members after each sample: the sampled values
 * (a metric without a value this time is absent) at `at` (epoch ms).
 */
export interface MetricsAppendedPayload {
  instanceId: string;
  at: number;
  values: Partial<Record<MetricName, number>>;
}
