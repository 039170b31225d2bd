import type { InstanceType } from '../../../contracts/instanceValues';
import type { MetricName, MetricUnit } from '../../../contracts/statistics';

export interface ChartLine {
  name: MetricName;
  label: string;
}

/** One chart of the monitoring section: lines of one unit, so they share an axis. */
export interface MetricChartSpec {
  title: string;
  unit: MetricUnit;
  lines: ChartLine[];
  /** Drawn only for a cluster (more than one member). */
  clusterOnly?: boolean;
}

const cpu: MetricChartSpec = { title: 'CPU', unit: 'percent', lines: [{ name: 'cpu_percent', label: 'CPU (% of one core)' }] };
const memory: MetricChartSpec = { title: 'Memory', unit: 'bytes', lines: [{ name: 'rss_bytes', label: 'Resident memory' }] };

/** What the monitoring section draws for each engine, in reading order. */
export const metricCharts: Record<InstanceType, MetricChartSpec[]> = {
  pg: [
    {
      title: 'Connections',
      unit: 'count',
      lines: [
        { name: 'connections_total', label: 'Total' },
        { name: 'connections_active', label: 'Active' },
        { name: 'connections_idle_in_tx', label: 'Idle in transaction' },
      ],
    },
    { title: 'Transactions per second', unit: 'per_s', lines: [{ name: 'tps', label: 'Commits and rollbacks' }] },
    { title: 'Cache hit ratio', unit: 'ratio', lines: [{ name: 'cache_hit_ratio', label: 'Blocks found in cache' }] },
    {
      title: 'Sizes',
      unit: 'bytes',
      lines: [
        { name: 'database_bytes', label: 'Databases' },
        { name: 'data_dir_bytes', label: 'Data folder' },
      ],
    },
    { title: 'Members streaming', unit: 'count', lines: [{ name: 'members_streaming', label: 'Leader and streaming replicas' }], clusterOnly: true },
    { title: 'Replication lag', unit: 'bytes', lines: [{ name: 'replication_lag_bytes', label: 'Largest replica lag' }], clusterOnly: true },
    { title: 'Replication lag in time', unit: 'seconds', lines: [{ name: 'replication_lag_seconds', label: 'Largest replica lag' }], clusterOnly: true },
    cpu,
    memory,
  ],
  etcd: [
    {
      title: 'Database size',
      unit: 'bytes',
      lines: [
        { name: 'db_size_bytes', label: 'Allocated' },
        { name: 'db_in_use_bytes', label: 'In use' },
      ],
    },
    { title: 'Keys', unit: 'count', lines: [{ name: 'keys', label: 'Keys' }] },
    {
      title: 'Proposals',
      unit: 'per_s',
      lines: [
        { name: 'proposals_committed', label: 'Committed' },
        { name: 'proposals_failed', label: 'Failed' },
      ],
    },
    cpu,
    memory,
  ],
};

/** The metric names an engine's charts read: the `names` the section asks the server for. */
export const chartedNames = (type: InstanceType): MetricName[] => metricCharts[type].flatMap((chart) => chart.lines.map((line) => line.name));
