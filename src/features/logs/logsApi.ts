import type { ClearLogsResponse, LogSize, LogsAllPage, LogsHistogram } from '../../../contracts/logs';
import { baseApi } from '../../api/baseApi';

/** The filters of every /logs call, as the API takes them (DESIGN §10); absent means any. */
export interface LogFilterArgs {
  /** Comma-separated levels. */
  level?: string;
  /** An instance id, or `none` for the control plane. */
  instanceId?: string;
  handler?: string;
  search?: string;
  from?: string;
  to?: string;
}

export interface ClearLogsArgs {
  instanceId?: string;
  before?: string;
  level?: string;
}

export const logPageSize = 200;

/**
 * How a log view reads: afresh each time it opens. Its live tail only hears entries while it is
 * open, so cached pages would miss what was written while the reader was on another screen.
 */
export const whenOpened = { refetchOnMountOrArgChange: true } as const;

const list = { type: 'Log', id: 'LIST' } as const;

/** The query string of a filter (for the export link), without empty values. */
export function filterQuery(args: LogFilterArgs & Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) if (value) query.set(name, value);
  return query.toString();
}

/** /logs (SPEC §7): every entry the caller may see, by filter; pages continue by cursor. */
export const logsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    logLevels: build.query<string[], void>({
      query: () => '/logs/log-levels',
    }),

    logs: build.infiniteQuery<LogsAllPage, LogFilterArgs, string | null>({
      infiniteQueryOptions: {
        initialPageParam: null,
        // Each page starts after the last entry of the one before, so new entries never shift pages.
        getNextPageParam: (last) => last.nextCursor,
      },
      query: ({ queryArg, pageParam }) => ({
        url: '/logs/all',
        params: { ...queryArg, pageSize: logPageSize, ...(pageParam && { cursor: pageParam }) },
      }),
      providesTags: [list],
    }),

    logSize: build.query<LogSize, void>({
      query: () => '/logs/size',
      providesTags: [list],
    }),

    logHistogram: build.query<LogsHistogram, LogFilterArgs & { from: string; to: string; buckets?: number }>({
      query: (params) => ({ url: '/logs/histogram', params }),
      providesTags: [list],
    }),

    clearLogs: build.mutation<ClearLogsResponse, ClearLogsArgs>({
      query: (params) => ({ url: '/logs/clear', method: 'POST', params, body: {} }),
      invalidatesTags: [list],
    }),
  }),
});

export const logTags = { list };

export const { useLogLevelsQuery, useLogsInfiniteQuery, useLogSizeQuery, useLogHistogramQuery, useClearLogsMutation } = logsApi;
