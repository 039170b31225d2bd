import type { MetricsResponse } from '../../../../contracts/statistics';
import { withSample } from '../../../../src/features/monitoring/monitoringSaga';
import { aSeries } from '../../handlers/statisticsHandlers';

const minute = 60_000;

/** A cached range of `rangeMs` ending at `to`, one connections point per step from its start. */
function cachedRange(to: number, rangeMs: number, step: number): MetricsResponse {
  const points: [number, number][] = [];
  for (let t = to - rangeMs; t <= to; t += step) points.push([t, 1]);
  return { series: [aSeries('connections_total', points)], step, from: to - rangeMs, to };
}

describe('withSample', () => {
  it('appends the sample and lets the oldest points slide out of the range', () => {
    const cached = cachedRange(60 * minute, 10 * minute, minute);
    withSample(cached, { instanceId: 'i-1', at: 62 * minute, values: { connections_total: 5 } }, 10 * minute);
    const points = cached.series[0].points;
    expect(points[points.length - 1]).toEqual([62 * minute, 5]);
    expect(points[0][0]).toBe(52 * minute);
    expect(cached).toMatchObject({ from: 52 * minute, to: 62 * minute });
  });

  it('keeps a coarse range at its spacing: a sample within one step of the last point waits', () => {
    const cached = cachedRange(60 * minute, 60 * minute, 10 * minute);
    withSample(cached, { instanceId: 'i-1', at: 60 * minute + 10_000, values: { connections_total: 5 } }, 60 * minute);
    expect(cached.series[0].points).toHaveLength(7);
    withSample(cached, { instanceId: 'i-1', at: 70 * minute, values: { connections_total: 6 } }, 60 * minute);
    expect(cached.series[0].points.at(-1)).toEqual([70 * minute, 6]);
  });

  it('starts a line for a metric the range had no sample of, with the unit the contract gives it', () => {
    const cached = cachedRange(60 * minute, 10 * minute, minute);
    withSample(cached, { instanceId: 'i-1', at: 61 * minute, values: { cache_hit_ratio: 0.99 } }, 10 * minute);
    expect(cached.series[1]).toEqual({ name: 'cache_hit_ratio', unit: 'ratio', points: [[61 * minute, 0.99]] });
  });
});
