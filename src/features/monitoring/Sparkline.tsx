import type { MetricUnit, SparklinesResponse } from '../../../contracts/statistics';
import { formatMetric } from './metricFormat';

// A list row's metric at a glance: an inline SVG line, no chart library, its figures in its name.

export interface SparklineProps {
  /** What the line shows and over when, the start of its accessible name: "CPU over the last hour". */
  label: string;
  /** [epoch ms, value], oldest first, `step` apart where sampling had no gap. */
  points: [number, number][];
  unit: MetricUnit;
  /** The range drawn: the first point's time and the end of the last one's step (epoch ms). */
  from: number;
  to: number;
  step: number;
  width?: number;
  height?: number;
}

/** Room at the edges so the stroke and the end dot are not clipped. */
const pad = 2;

/** Where each point sits; a point more than a step after the one before starts a new stroke (a gap). */
export function sparklinePath(points: [number, number][], { from, to, step, width, height }: { from: number; to: number; step: number; width: number; height: number }) {
  const values = points.map(([, value]) => value);
  const lowest = Math.min(...values);
  const highest = Math.max(...values);
  // Between its own lowest and highest value, a change fills the height wherever it happens (from
  // zero, a busy instance's 40 to 42 % was a flat line a few pixels tall). A line of one value
  // throughout is set against zero instead: along the bottom when idle, along the top when busy.
  const [low, high] = highest > lowest ? [lowest, highest] : [Math.min(0, lowest), Math.max(0, highest)];
  const range = high - low || 1;
  const span = Math.max(to - step - from, 1);
  const x = (at: number) => pad + ((at - from) / span) * (width - 2 * pad);
  const y = (value: number) => height - pad - ((value - low) / range) * (height - 2 * pad);
  const commands = points.map(([at, value], index) => {
    const joined = index > 0 && at - points[index - 1][0] <= step * 1.5;
    return `${joined ? 'L' : 'M'}${x(at).toFixed(1)} ${y(value).toFixed(1)}`;
  });
  const [lastAt, lastValue] = points[points.length - 1];
  return { d: commands.join(' '), end: { x: x(lastAt), y: y(lastValue) } };
}

/** The line with min, max and latest value in its accessible name; "—" when there is no point. */
export function Sparkline({ label, points, unit, from, to, step, width = 96, height = 24 }: SparklineProps) {
  if (points.length === 0) return <>—</>;
  const values = points.map(([, value]) => value);
  const [lastAt, lastValue] = points[points.length - 1];
  // "now" only while the newest point is recent; a stopped instance's line says when it ended.
  const latest = lastAt >= to - 2 * step ? 'now' : 'last';
  const name = `${label}: min ${formatMetric(Math.min(...values), unit)}, max ${formatMetric(Math.max(...values), unit)}, ${latest} ${formatMetric(lastValue, unit)}`;
  const { d, end } = sparklinePath(points, { from, to, step, width, height });
  return (
    <svg role="img" aria-label={name} width={width} height={height} viewBox={`0 0 ${width} ${height}`} style={{ display: 'block', overflow: 'visible' }}>
      <path d={d} fill="none" strokeWidth={1.5} strokeLinejoin="round" strokeLinecap="round" style={{ stroke: 'var(--w-primary-text, currentColor)' }} />
      <circle cx={end.x} cy={end.y} r={2} style={{ fill: 'var(--w-primary-text, currentColor)' }} />
    </svg>
  );
}

/** One instance's line out of a GET /instances/sparklines answer; nothing while it loads. */
export function InstanceSparkline({ data, instanceId, label }: { data: SparklinesResponse | undefined; instanceId: string; label: string }) {
  if (!data) return null;
  const points = data.items.find((item) => item.instanceId === instanceId)?.points ?? [];
  return <Sparkline label={label} points={points} unit={data.unit} from={data.from} to={data.to} step={data.step} />;
}
