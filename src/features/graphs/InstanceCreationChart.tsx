import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { GraphPoint } from '../../../contracts/instances';
import type { InstanceType } from '../../../contracts/instanceValues';
import { formatDate } from '../../components/DateTime';

// The theme stylesheet's variables (src/theme/system.ts), so the chart follows the chosen theme.
const colours = { pg: 'var(--w-primary)', etcd: 'var(--chakra-colors-orange-400)', line: 'var(--w-fg)', grid: 'var(--w-border)', text: 'var(--w-muted)' };

interface InstanceCreationChartProps {
  points: GraphPoint[];
  /** The type filter: only its bars are drawn. */
  type: InstanceType | undefined;
}

/** Bars of instances created per bucket, stacked by type, and a line of the running count on its own axis. */
export function InstanceCreationChart({ points, type }: InstanceCreationChartProps) {
  // A bucket is named by its first day, in SPEC §9's mm/dd/yy whatever its length.
  const label = (day: unknown) => formatDate(String(day));
  return (
    <ResponsiveContainer width="100%" height={320}>
      <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" stroke={colours.grid} vertical={false} />
        <XAxis dataKey="bucket" tickFormatter={label} tick={{ fill: colours.text, fontSize: 12 }} minTickGap={16} />
        <YAxis yAxisId="created" allowDecimals={false} tick={{ fill: colours.text, fontSize: 12 }} />
        <YAxis yAxisId="cumulative" orientation="right" allowDecimals={false} tick={{ fill: colours.text, fontSize: 12 }} />
        <Tooltip labelFormatter={label} />
        {/* In drawing order: the stacked types, then the running count. The count steps up at the
            bucket its creations fall in: a curve through the points rose across the bucket before. */}
        <Legend itemSorter={null} />
        {type !== 'etcd' && <Bar yAxisId="created" dataKey="pg" name="PostgreSQL" stackId="created" fill={colours.pg} />}
        {type !== 'pg' && <Bar yAxisId="created" dataKey="etcd" name="etcd" stackId="created" fill={colours.etcd} />}
        <Line yAxisId="cumulative" dataKey="cumulative" name="Created so far" type="stepAfter" stroke={colours.line} strokeWidth={2} dot={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
