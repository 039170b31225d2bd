import type { SagaIterator } from 'redux-saga';
import { put, select, takeEvery } from 'redux-saga/effects';
import { metricUnitOf, type MetricName, type MetricsAppendedPayload, type MetricsResponse } from '../../../contracts/statistics';
import type { RootState } from '../../app/rootReducer';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { metricsApi } from './metricsApi';
import { metricRange } from './metricRanges';

export function* monitoringSaga(): SagaIterator {
  yield takeEvery(hubEventType('MetricsAppended'), appendSample);
}

/**
 * Adds one pushed sample to a cached range ending now and drops what slid out of it. A sample
 * closer than one step to a line's last point waits for the next, so a coarse range keeps its
 * spacing instead of growing a dense tail of raw samples.
 */
export function withSample(cached: MetricsResponse, { at, values }: MetricsAppendedPayload, rangeMs: number): void {
  const from = at - rangeMs;
  for (const [name, value] of Object.entries(values) as [MetricName, number][]) {
    let series = cached.series.find((s) => s.name === name);
    if (!series) {
      series = { name, unit: metricUnitOf[name], points: [] };
      cached.series.push(series);
    }
    const last = series.points[series.points.length - 1];
    if (last && at - last[0] < cached.step) continue;
    series.points.push([at, value]);
    // The new point is in range, so some point is kept.
    series.points.splice(0, series.points.findIndex(([t]) => t >= from));
  }
  cached.from = Math.max(cached.from, from);
  cached.to = Math.max(cached.to, at);
}

/** A sample of one instance extends every cached range of that instance, whichever chart shows it. */
export function* appendSample({ payload }: HubEventAction<MetricsAppendedPayload>): SagaIterator {
  const state: RootState = yield select();
  for (const args of metricsApi.util.selectCachedArgsForQuery(state, 'instanceMetrics')) {
    if (args.instanceId !== payload.instanceId) continue;
    const { ms } = metricRange(args.range);
    yield put(metricsApi.util.updateQueryData('instanceMetrics', args, (cached) => withSample(cached, payload, ms)));
  }
}
