import { Box, DataList, HStack, Stack, Text } from '@chakra-ui/react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import type { MetricSeries } from '../../../contracts/statistics';
import { formatDateTime } from '../../components/DateTime';
import { useChartPalette, type ChartPalette } from './chartPalette';
import type { MetricChartSpec } from './metricCharts';
import { formatMetric } from './metricFormat';

const height = 180;

// What uPlot's own stylesheet does for the parts drawn here (the legend is ours): overlay, cursor
// lines and points positioned over the canvas.
const plotCss = {
  '& .uplot, & .uplot *': { boxSizing: 'border-box' },
  '& .uplot': { width: '100%', fontSize: 'xs' },
  '& .u-wrap': { position: 'relative', userSelect: 'none' },
  '& .u-over, & .u-under, & .u-axis, & .u-select': { position: 'absolute' },
  '& .u-under': { overflow: 'hidden' },
  '& .uplot canvas': { display: 'block', position: 'relative', width: '100%', height: '100%' },
  '& .u-cursor-x, & .u-cursor-y': { position: 'absolute', left: 0, top: 0, pointerEvents: 'none', willChange: 'transform' },
  '& .u-hz .u-cursor-x': { height: '100%', borderRight: '1px dashed var(--w-muted)' },
  '& .u-hz .u-cursor-y': { width: '100%', borderBottom: '1px dashed var(--w-muted)' },
  '& .u-cursor-pt': { position: 'absolute', top: 0, left: 0, borderRadius: '50%', border: '0 solid', pointerEvents: 'none', backgroundClip: 'padding-box !important' },
  '& .u-axis.u-off, & .u-select.u-off, & .u-cursor-x.u-off, & .u-cursor-y.u-off, & .u-cursor-pt.u-off': { display: 'none' },
};

/**
 * The lines on one time axis, as uPlot takes them: the union of their instants, and each line's
 * value at each instant or null where it has none (drawn as a gap).
 */
function alignSeries(lines: (MetricSeries | undefined)[]): AlignedData {
  const times = [...new Set(lines.flatMap((line) => line?.points.map(([t]) => t) ?? []))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const values = lines.map((line) => {
    const column: (number | null)[] = new Array(times.length).fill(null);
    for (const [t, v] of line?.points ?? []) column[index.get(t)!] = v;
    return column;
  });
  return [times, ...values];
}

interface Extremes {
  latest: [number, number] | undefined;
  min: number;
  max: number;
}

function extremes(series: MetricSeries | undefined): Extremes | undefined {
  const points = series?.points ?? [];
  if (points.length === 0) return undefined;
  const values = points.map(([, v]) => v);
  return { latest: points[points.length - 1], min: Math.min(...values), max: Math.max(...values) };
}

function chartOptions(spec: MetricChartSpec, palette: ChartPalette, width: number, range: { current: [number, number] }, onCursor: (idx: number | null) => void): Options {
  const format = (value: number | null) => formatMetric(value, spec.unit);
  const axis = { stroke: palette.axis, grid: { stroke: palette.grid, width: 1 }, ticks: { stroke: palette.grid, width: 1 } };
  return {
    width,
    height,
    ms: 1,
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 7 } },
    scales: {
      x: { time: true, range: () => range.current },
      // From zero, so a flat line near a small value does not look like a swing.
      y: { range: (_u, _min, max) => (spec.unit === 'ratio' ? [0, 1] : [0, max > 0 ? max * 1.1 : 1]) },
    },
    axes: [axis, { ...axis, size: 76, values: (_u, splits) => splits.map(format) }],
    series: [
      {},
      ...spec.lines.map((line, i) => {
        const { stroke, dash } = palette.lines[i % palette.lines.length];
        return { label: line.label, stroke, dash, width: 2, points: { show: false } };
      }),
    ],
    hooks: { setCursor: [(u) => onCursor(u.cursor.idx ?? null)] },
  };
}

/** The line's colour and dash in the legend, as the canvas draws it. */
function LineSwatch({ look }: { look: ChartPalette['lines'][number] }) {
  return <Box as="span" display="inline-block" w="5" mr="2" verticalAlign="middle" borderTopWidth="3px" borderTopStyle={look.border} style={{ borderTopColor: look.stroke }} />;
}

interface MetricChartProps {
  spec: MetricChartSpec;
  /** The response's series; the chart picks the ones its lines name. */
  series: MetricSeries[];
  /** The range drawn, epoch ms. */
  from: number;
  to: number;
}

/**
 * One time-series chart drawn by uPlot on a canvas, with a legend of exact values (where the
 * pointer is, else the latest) and, for screen readers, each line's lowest and highest value in the range.
 */
export function MetricChart({ spec, series, from, to }: MetricChartProps) {
  const titleId = useId();
  const palette = useChartPalette();
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [cursor, setCursor] = useState<number | null>(null);
  const lines = useMemo(() => spec.lines.map((line) => series.find((s) => s.name === line.name)), [spec, series]);
  const data = useMemo(() => alignSeries(lines), [lines]);
  const range = useRef<[number, number]>([from, to]);
  range.current = [from, to];
  const latestData = useRef(data);
  latestData.current = data;
  const empty = data[0].length === 0;

  // Made again only when the look changes (another theme); new points go through setData below.
  useEffect(() => {
    const element = container.current;
    if (!element || empty) return;
    const chart = new uPlot(chartOptions(spec, palette, element.clientWidth, range, setCursor), latestData.current, element);
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [spec, palette, empty]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data, from, to]);

  const figures = lines.map(extremes);
  const valueAt = (i: number) => {
    if (cursor !== null && cursor < data[0].length) return data[i + 1][cursor];
    return figures[i]?.latest?.[1];
  };
  const latestAt = figures.find((figure) => figure?.latest)?.latest?.[0];
  const shownAt = cursor !== null && cursor < data[0].length ? data[0][cursor] : latestAt;

  return (
    <Box as="figure" role="figure" aria-labelledby={titleId} m="0">
      <Stack gap="2">
        <HStack justify="space-between" wrap="wrap" gap="2">
          <Text as="figcaption" id={titleId} fontWeight="semibold">
            {spec.title}
          </Text>
          {shownAt !== undefined && (
            <Text fontSize="xs" color="fg.muted">
              {cursor !== null ? 'At' : 'Latest'} {formatDateTime(new Date(shownAt).toISOString(), { seconds: true })}
            </Text>
          )}
        </HStack>
        {empty ? (
          <Text color="fg.muted" fontSize="sm" py="6">
            No samples in this range.
          </Text>
        ) : (
          <>
            {/* The canvas says nothing to a screen reader; the legend and the summary below do. */}
            <Box ref={container} aria-hidden="true" h={`${height}px`} css={plotCss} />
            <DataList.Root orientation="horizontal" size="sm" gap="1">
              {spec.lines.map((line, i) => (
                <DataList.Item key={line.name}>
                  <DataList.ItemLabel minW="0">
                    <LineSwatch look={palette.lines[i % palette.lines.length]} />
                    {line.label}
                  </DataList.ItemLabel>
                  <DataList.ItemValue fontVariantNumeric="tabular-nums">{formatMetric(valueAt(i), spec.unit)}</DataList.ItemValue>
                </DataList.Item>
              ))}
            </DataList.Root>
            <Box srOnly>
              {spec.lines.map((line, i) => {
                const figure = figures[i];
                return (
                  <p key={line.name}>
                    {figure
                      ? `${line.label}: lowest ${formatMetric(figure.min, spec.unit)}, highest ${formatMetric(figure.max, spec.unit)} in this range.`
                      : `${line.label}: no samples in this range.`}
                  </p>
                );
              })}
            </Box>
          </>
        )}
      </Stack>
    </Box>
  );
}
