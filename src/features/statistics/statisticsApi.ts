import type { Statistics, StatisticsQuery } from '../../../contracts/statistics';
import { baseApi } from '../../api/baseApi';

// The caller's own figures, kept current by StatisticsChanged; a group's figures are asked again.
const own = { type: 'Statistics', id: 'OWN' } as const;
const ofGroups = { type: 'Statistics', id: 'GROUPS' } as const;

export const statisticsTags = { own, ofGroups };

/** GET /api/statistics: the caller's figures (DESIGN §10), or with groupId one group's. */
export const statisticsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    statistics: build.query<Statistics, StatisticsQuery | void>({
      query: (params) => ({ url: '/api/statistics', params: params ?? undefined }),
      providesTags: (_result, _error, params) => [params?.groupId ? ofGroups : own],
    }),
  }),
});

export const { useStatisticsQuery } = statisticsApi;
