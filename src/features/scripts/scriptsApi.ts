import type { ThunkAction, UnknownAction } from '@reduxjs/toolkit';
import type { Script, ScriptRun, ScriptRunRequest, ScriptRunSummary, ScriptRunsPage, ScriptSchema } from '../../../contracts/scripts';
import { baseApi } from '../../api/baseApi';
import type { RootState } from '../../app/rootReducer';
import { pushToast } from '../ui/uiSlice';

/** GET /instances/{id}/script/runs. */
export interface ScriptRunsArgs {
  instanceId: string;
  page: number;
  pageSize: number;
}

/** What a call about one run needs to find it. */
export interface ScriptRunRef {
  instanceId: string;
  runId: string;
}

// An instance's saved script, its history pages, and one run.
const script = (instanceId: string) => ({ type: 'Script', id: `script/${instanceId}` }) as const;
const runs = (instanceId: string) => ({ type: 'Script', id: `runs/${instanceId}` }) as const;
const run = (runId: string) => ({ type: 'Script', id: `run/${runId}` }) as const;

/** The tags of this API, for the saga that follows the hub. */
export const scriptTags = { script, runs, run };

const path = (instanceId: string, rest = '') => `/instances/${encodeURIComponent(instanceId)}/script${rest}`;

/** /instances/{id}/script… (DESIGN §10): who may see an instance may edit and run its script. */
export const scriptsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    script: build.query<Script, string>({
      query: (instanceId) => path(instanceId),
      providesTags: (_result, _error, instanceId) => [script(instanceId)],
    }),

    saveScript: build.mutation<Script, { instanceId: string; script: string }>({
      query: ({ instanceId, script }) => ({ url: path(instanceId), method: 'PUT', body: { script } }),
      async onQueryStarted({ instanceId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        // The answer is the saved script: the cache takes it as is, without a refetch.
        dispatch(scriptsApi.util.upsertQueryData('script', instanceId, data));
        dispatch(pushToast({ status: 'success', summary: 'Script saved' }));
      },
    }),

    /** 202: the run is pending; its phases and progress arrive as ScriptRunUpdated. */
    runScript: build.mutation<ScriptRun, ScriptRunRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId), method: 'POST', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [runs(instanceId)] : []),
      async onQueryStarted({ instanceId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        // The page shows the run from its first answer, not from a refetch.
        if (data) dispatch(scriptsApi.util.upsertQueryData('scriptRun', { instanceId, runId: data.id }, data));
      },
    }),

    /** The instance's own tables and columns (not a sandbox's), for the editor's completion. */
    scriptSchema: build.query<ScriptSchema, string>({
      query: (instanceId) => path(instanceId, '/schema'),
    }),

    scriptRuns: build.query<ScriptRunsPage, ScriptRunsArgs>({
      query: ({ instanceId, ...params }) => ({ url: path(instanceId, '/runs'), params }),
      providesTags: (_result, _error, { instanceId }) => [runs(instanceId)],
    }),

    scriptRun: build.query<ScriptRun, ScriptRunRef>({
      query: ({ instanceId, runId }) => path(instanceId, `/runs/${encodeURIComponent(runId)}`),
      providesTags: (_result, _error, { runId }) => [run(runId)],
    }),

    /** The statement is cancelled and the sandbox removed; the outcome arrives as ScriptRunUpdated. */
    cancelScriptRun: build.mutation<ScriptRun, ScriptRunRef>({
      query: ({ instanceId, runId }) => ({ url: path(instanceId, `/runs/${encodeURIComponent(runId)}/cancel`), method: 'POST', body: {} }),
      async onQueryStarted(ref, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(patchCachedRun(ref.instanceId, data));
      },
    }),
  }),
});

export const {
  useScriptQuery,
  useSaveScriptMutation,
  useRunScriptMutation,
  useScriptSchemaQuery,
  useScriptRunsQuery,
  useScriptRunQuery,
  useCancelScriptRunMutation,
} = scriptsApi;

type CacheThunk = ThunkAction<void, RootState, unknown, UnknownAction>;

/** Whether a cached history page of the instance lists this run. */
export function isRunListed(state: RootState, { instanceId, id }: Pick<ScriptRunSummary, 'instanceId' | 'id'>): boolean {
  return scriptsApi.util
    .selectCachedArgsForQuery(state, 'scriptRuns')
    .filter((args) => args.instanceId === instanceId)
    .some((args) => !!scriptsApi.endpoints.scriptRuns.select(args)(state).data?.items.some((item) => item.id === id));
}

/**
 * Writes what is known of a run — a pushed summary or the cancel's answer — into the cached run
 * and every cached history page that lists it, so phase and progress show without a refetch.
 * Results are not part of a summary: the cached run keeps its own until it is read again.
 */
export const patchCachedRun =
  (instanceId: string, summary: ScriptRunSummary): CacheThunk =>
  (dispatch, getState) => {
    // Only the summary's own fields: a whole run (the cancel's answer) also carries what the history rows lack.
    const { results: _r, changes: _c, script: _s, continueOnError: _e, timeoutMs: _t, ...fields } = summary as Partial<ScriptRun>;
    dispatch(scriptsApi.util.updateQueryData('scriptRun', { instanceId, runId: summary.id }, (cached) => void Object.assign(cached, fields)));
    for (const args of scriptsApi.util.selectCachedArgsForQuery(getState(), 'scriptRuns')) {
      if (args.instanceId !== instanceId) continue;
      dispatch(
        scriptsApi.util.updateQueryData('scriptRuns', args, (page) => {
          const row = page.items.find((item) => item.id === summary.id);
          if (row) Object.assign(row, fields);
        }),
      );
    }
  };
