import type { InstanceType } from '../../../contracts/instanceValues';
import type { MetricName, MetricsQuery, MetricsResponse, SparklinesQuery, SparklinesResponse } from '../../../contracts/statistics';
import { baseApi } from '../../api/baseApi';
import { chartedNames } from './metricCharts';
import { metricRange, type MetricRange } from './metricRanges';

export interface InstanceMetricsArgs {
  instanceId: string;
  type: InstanceType;
  range: MetricRange;
}

const metricsTag = (instanceId: string) => ({ type: 'Instance', id: `${instanceId}/metrics` }) as const;

/**
 * GET /instances/{id}/metrics for a range ending now. The range, not its instants, is the cache
 * key: a refetch asks again up to the new now, and pushed samples extend the cached one meanwhile.
 */
export const metricsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    instanceMetrics: build.query<MetricsResponse, InstanceMetricsArgs>({
      query: ({ instanceId, type, range }) => {
        const { ms, stepMs } = metricRange(range);
        const to = Date.now();
        const params: MetricsQuery = {
          from: new Date(to - ms).toISOString(),
          to: new Date(to).toISOString(),
          step: stepMs,
          names: chartedNames(type).join(','),
        };
        return { url: `/instances/${encodeURIComponent(instanceId)}/metrics`, params };
      },
      providesTags: (_result, _error, { instanceId }) => [metricsTag(instanceId)],
    }),
    /** GET /instances/sparklines: one metric of a list page's instances in one request, keyed by the ids. */
    instanceSparklines: build.query<SparklinesResponse, { ids: string[]; name: MetricName }>({
      query: ({ ids, name }) => {
        const params: SparklinesQuery = { ids: ids.join(','), name };
        return { url: '/instances/sparklines', params };
      },
    }),
  }),
});

export const { useInstanceMetricsQuery, useInstanceSparklinesQuery } = metricsApi;
