import { http, HttpResponse } from 'msw';
import type { MetricSeries, MetricsResponse, SparklinesResponse, Statistics } from '../../../contracts/statistics';
import { metricUnitOf, type MetricName } from '../../../contracts/statistics';
import { requestLog } from './pages';

/** The figures of a small estate; override what a test is about. */
export const aStatistics = (overrides: Partial<Statistics> = {}): Statistics => ({
  instances: {
    total: 7,
    byStatus: { unInitialized: 0, offline: 1, stopped: 2, running: 4, unknown: 0 },
    byType: { pg: 5, etcd: 2 },
    byHealth: { good: 5, warn: 1, error: 1 },
    sizeBytes: 3_500_000_000,
    clusters: 0,
    members: 7,
  },
  backups: { total: 40, failed24h: 2, storageBytes: 12_300_000_000, lastSucceededAt: '2025-03-01T10:00:00.000Z' },
  groups: 3,
  users: 9,
  logs: { entries: 5000, bytes: 2_000_000, errors24h: 17 },
  operationsRunning: 0,
  generatedAt: '2025-03-01T10:00:00.000Z',
  ...overrides,
});

/** GET /api/statistics: what `answer` makes of the query (its groupId), every query logged. */
export function statisticsHandler(answer: (query: URLSearchParams) => Statistics | Response = () => aStatistics()) {
  const log = requestLog();
  const handler = http.get('/api/statistics', ({ request }) => {
    log.record(request);
    const result = answer(new URL(request.url).searchParams);
    return result instanceof Response ? result : HttpResponse.json(result);
  });
  return { handler, ...log };
}

/** A series of `name` with its contract unit. */
export const aSeries = (name: MetricName, points: [number, number][]): MetricSeries => ({ name, unit: metricUnitOf[name], points });

/**
 * GET /instances/{id}/metrics: the series `answer` gives for the query, over the range asked,
 * with the step asked (10 s when none), once `until` settles; every query logged.
 */
export function metricsHandler(answer: (query: URLSearchParams) => MetricSeries[] | Response = () => [], { until }: { until?: Promise<void> } = {}) {
  const log = requestLog();
  const handler = http.get('/instances/:id/metrics', async ({ request }) => {
    log.record(request);
    await until;
    const query = new URL(request.url).searchParams;
    const result = answer(query);
    if (result instanceof Response) return result;
    const body: MetricsResponse = {
      series: result,
      step: Number(query.get('step') ?? 10_000),
      from: Date.parse(query.get('from')!),
      to: Date.parse(query.get('to')!),
    };
    return HttpResponse.json(body);
  });
  return { handler, ...log };
}

/**
 * GET /instances/sparklines: the points `answer` gives each id asked for (none by default), every
 * id listed, over the hour ending at the next minute; every query logged.
 */
export function sparklinesHandler(answer: (instanceId: string) => [number, number][] = () => []) {
  const log = requestLog();
  const handler = http.get('/instances/sparklines', ({ request }) => {
    log.record(request);
    const query = new URL(request.url).searchParams;
    const name = query.get('name') as MetricName;
    const to = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    const items = (query.get('ids') ?? '').split(',').map((instanceId) => ({ instanceId, points: answer(instanceId) }));
    const body: SparklinesResponse = { name, unit: metricUnitOf[name], step: 60_000, from: to - 3_600_000, to, items };
    return HttpResponse.json(body);
  });
  return { handler, ...log };
}

/**
 * Quiet answers for the figures that screens read beside their own data (the Instances screen's
 * strip and sparklines, a group's totals, an instance's charts): installed for every test file, replaced by a
 * test's own handlers where the figures are what it checks.
 */
export const ambientStatisticsHandlers = [statisticsHandler().handler, metricsHandler().handler, sparklinesHandler().handler];
