import type { ThunkAction, UnknownAction } from '@reduxjs/toolkit';
import type {
  AllBackupsPage,
  Backup,
  BackupSchedule,
  BackupsSummary,
  DownloadUrl,
  RetentionPreview,
  RetentionPreviewRequest,
  UpdateScheduleRequest,
} from '../../../contracts/backups';
import type { BackupKind } from '../../../contracts/backupValues';
import type { Instance } from '../../../contracts/instances';
import type { PhysicalBackupKind } from '../../../contracts/pitr';
import type { PageOf } from '../../../contracts/page';
import { baseApi } from '../../api/baseApi';
import type { RootState } from '../../app/rootReducer';
import type { ListParams } from '../../components/useListParams';
import { instanceTags } from '../instances/instancesApi';
import { pushToast } from '../ui/uiSlice';

/** The filters both backup lists take, as the URL query carries them (from/to as ISO date-times). */
export interface BackupFilterArgs {
  status?: string;
  trigger?: string;
  from?: string;
  to?: string;
}

/** GET /instances/{id}/backups/database or …/files. */
export interface InstanceBackupsArgs extends ListParams, BackupFilterArgs {
  instanceId: string;
  kind: BackupKind;
}

/** GET /backups: every backup the user may see. */
export interface AllBackupsArgs extends ListParams, BackupFilterArgs {
  kind?: string;
  instanceId?: string;
  failuresFirst?: string;
}

/** What a call about one backup needs to find it. */
export type BackupRef = Pick<Backup, 'id' | 'instanceId' | 'kind'>;

// The list of every backup; the lists, summary and schedule of one instance; one backup.
const list = { type: 'Backup', id: 'LIST' } as const;
const instanceLists = (instanceId: string) => ({ type: 'Backup', id: `instance/${instanceId}` }) as const;
const summary = (instanceId: string) => ({ type: 'Backup', id: `summary/${instanceId}` }) as const;
const schedule = (instanceId: string) => ({ type: 'Backup', id: `schedule/${instanceId}` }) as const;
const backup = (id: string) => ({ type: 'Backup', id }) as const;

/** The tags of this API, for the saga that follows the hub. */
export const backupTags = { list, instanceLists, summary, schedule, backup };

/** Taking or deleting a backup changes its instance's figures and lists, and the list of all backups. */
const backupsOf = (instanceId: string) => [summary(instanceId), instanceLists(instanceId), list];

const path = (instanceId: string, rest = '') => `/instances/${encodeURIComponent(instanceId)}/backups${rest}`;

// The API names a kind's lists in the plural but deletes file backups under the singular.
const listSegment: Record<BackupKind, string> = { database: 'database', file: 'files' };
const deleteSegment: Record<BackupKind, string> = { database: 'database', file: 'file' };

/** Where a kind's figures sit in the summary. */
export const summaryKey: Record<BackupKind, 'database' | 'files'> = { database: 'database', file: 'files' };

const itemTags = (items: Backup[] | undefined) => (items ?? []).map(({ id }) => backup(id));

/** /instances/{id}/backups… and /backups (DESIGN §10): who may see an instance may see its backups. */
export const backupsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    backupsSummary: build.query<BackupsSummary, string>({
      query: (instanceId) => path(instanceId),
      providesTags: (_result, _error, instanceId) => [summary(instanceId), schedule(instanceId)],
    }),

    instanceBackups: build.query<PageOf<Backup>, InstanceBackupsArgs>({
      query: ({ instanceId, kind, ...params }) => ({ url: path(instanceId, `/${listSegment[kind]}`), params }),
      providesTags: (result, _error, { instanceId }) => [instanceLists(instanceId), ...itemTags(result?.items)],
    }),

    allBackups: build.query<AllBackupsPage, AllBackupsArgs>({
      query: (params) => ({ url: '/backups', params }),
      providesTags: (result) => [list, ...itemTags(result?.items)],
    }),

    /**
     * 202: the backup is pending or running; progress and the outcome arrive as hub events. A
     * database backup is a dump unless a physical kind is asked for (pg with WAL archiving).
     */
    takeBackup: build.mutation<Backup, { instanceId: string; kind: BackupKind; physical?: PhysicalBackupKind }>({
      query: ({ instanceId, kind, physical }) => ({
        url: path(instanceId, `/${listSegment[kind]}/backup`),
        method: 'POST',
        body: physical ? { kind: physical } : {},
      }),
      // Also after a 409 (one is running already): the summary then shows the one that runs.
      invalidatesTags: (_result, _error, { instanceId }) => backupsOf(instanceId),
      async onQueryStarted({ instanceId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        // The button waits and the progress shows from now on, not from the refetch.
        if (data) {
          dispatch(
            backupsApi.util.updateQueryData('backupsSummary', instanceId, (cached) => {
              cached[summaryKey[data.kind]].running = data;
            }),
          );
        }
      },
    }),

    deleteBackup: build.mutation<{ id: string }, BackupRef & { force?: boolean }>({
      query: ({ id, instanceId, kind, force }) => ({
        url: path(instanceId, `/${deleteSegment[kind]}/${encodeURIComponent(id)}`),
        method: 'DELETE',
        params: force ? { force: true } : undefined,
      }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? backupsOf(instanceId) : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Backup deleted' }));
      },
    }),

    /** A signed URL valid for minutes: a mutation, so it is never cached and each download asks afresh. */
    backupDownloadUrl: build.mutation<DownloadUrl, BackupRef>({
      query: ({ id, instanceId }) => path(instanceId, `/url/${encodeURIComponent(id)}`),
    }),

    /** 202; the result arrives later as BackupUpdated with `verification` set. */
    verifyBackup: build.mutation<Backup, BackupRef>({
      query: ({ id, instanceId }) => ({ url: path(instanceId, `/${encodeURIComponent(id)}/verify`), method: 'POST', body: {} }),
      // The answer is the backup being verified (verifying: true); the result comes as BackupUpdated.
      async onQueryStarted(_ref, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(patchCachedBackup(data, (cached) => void Object.assign(cached, data)));
      },
    }),

    /** A pinned backup is never trimmed by retention; the answer is the backup as it now is. */
    pinBackup: build.mutation<Backup, BackupRef & { pinned: boolean }>({
      query: ({ id, instanceId, pinned }) => ({ url: path(instanceId, `/${encodeURIComponent(id)}/pin`), method: 'PUT', body: { pinned } }),
      async onQueryStarted(_ref, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(patchCachedBackup(data, (cached) => void Object.assign(cached, data)));
      },
    }),

    backupSchedule: build.query<BackupSchedule, string>({
      query: (instanceId) => path(instanceId, '/schedule'),
      providesTags: (_result, _error, instanceId) => [schedule(instanceId)],
    }),

    saveBackupSchedule: build.mutation<BackupSchedule, UpdateScheduleRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/schedule'), method: 'PUT', body }),
      // The answer is the schedule itself (with its next runs); only the summary that embeds it is refetched.
      invalidatesTags: (result, _error, { instanceId }) => (result ? [summary(instanceId)] : []),
      async onQueryStarted({ instanceId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        dispatch(backupsApi.util.upsertQueryData('backupSchedule', instanceId, data));
        dispatch(pushToast({ status: 'success', summary: 'Schedule saved' }));
      },
    }),

    /**
     * A dry run: what the policy would delete now; nothing changes. Cached by policy, and read again
     * whenever the instance's backups or schedule change, as its summary is.
     */
    retentionPreview: build.query<RetentionPreview, RetentionPreviewRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/retention/preview'), method: 'POST', body }),
      providesTags: (_result, _error, { instanceId }) => [summary(instanceId), instanceLists(instanceId)],
    }),

    /** Restores a backup into a new instance (202: it is being created). */
    restoreBackup: build.mutation<Instance, { instanceId: string; backupId: string; name: string }>({
      query: ({ instanceId, backupId, name }) => ({
        url: `/instances/${encodeURIComponent(instanceId)}/clone`,
        method: 'POST',
        body: { name, backupId },
      }),
      invalidatesTags: (result) => (result ? [instanceTags.list] : []),
    }),
  }),
});

export const {
  useBackupsSummaryQuery,
  useInstanceBackupsQuery,
  useAllBackupsQuery,
  useTakeBackupMutation,
  useBackupDownloadUrlMutation,
  useVerifyBackupMutation,
  usePinBackupMutation,
  useBackupScheduleQuery,
  useSaveBackupScheduleMutation,
  useRetentionPreviewQuery,
  useRestoreBackupMutation,
} = backupsApi;

type CacheThunk = ThunkAction<void, RootState, unknown, UnknownAction>;

/** Every cached list page that may show backups of this instance: its own lists and the list of all. */
function cachedPages(state: RootState, instanceId: string) {
  const own = backupsApi.util
    .selectCachedArgsForQuery(state, 'instanceBackups')
    .filter((args) => args.instanceId === instanceId)
    .map((args) => ({ endpoint: 'instanceBackups' as const, args }));
  const all = backupsApi.util.selectCachedArgsForQuery(state, 'allBackups').map((args) => ({ endpoint: 'allBackups' as const, args }));
  return [...own, ...all];
}

/** Whether any cached list page shows this backup. */
export function isBackupCached(state: RootState, { id, instanceId }: Pick<Backup, 'id' | 'instanceId'>): boolean {
  return cachedPages(state, instanceId).some(({ endpoint, args }) => {
    const page =
      endpoint === 'allBackups'
        ? backupsApi.endpoints.allBackups.select(args)(state).data
        : backupsApi.endpoints.instanceBackups.select(args)(state).data;
    return !!page?.items.some((item) => item.id === id);
  });
}

/**
 * Changes the pages that hold a backup — each cached list page showing it, and its instance's
 * summary while it is the running one — so progress and outcomes appear without a refetch.
 */
export const patchCachedBackup =
  ({ id, instanceId }: Pick<Backup, 'id' | 'instanceId'>, change: (cached: Backup) => void): CacheThunk =>
  (dispatch, getState) => {
    const patchPage = (page: PageOf<Backup>) => {
      const row = page.items.find((item) => item.id === id);
      if (row) change(row);
    };
    for (const { endpoint, args } of cachedPages(getState(), instanceId)) {
      if (endpoint === 'allBackups') dispatch(backupsApi.util.updateQueryData('allBackups', args, patchPage));
      else dispatch(backupsApi.util.updateQueryData('instanceBackups', args, patchPage));
    }
    dispatch(
      backupsApi.util.updateQueryData('backupsSummary', instanceId, (cached) => {
        for (const kind of [cached.database, cached.files]) if (kind.running?.id === id) change(kind.running);
      }),
    );
  };

/** Takes a backup off every cached list page, and out of its instance's summary if it was the running one. */
export const removeCachedBackup =
  ({ id, instanceId }: Pick<Backup, 'id' | 'instanceId'>): CacheThunk =>
  (dispatch, getState) => {
    const removeFrom = (page: PageOf<Backup>) => {
      const at = page.items.findIndex((item) => item.id === id);
      if (at < 0) return;
      page.items.splice(at, 1);
      page.total -= 1;
    };
    for (const { endpoint, args } of cachedPages(getState(), instanceId)) {
      if (endpoint === 'allBackups') dispatch(backupsApi.util.updateQueryData('allBackups', args, removeFrom));
      else dispatch(backupsApi.util.updateQueryData('instanceBackups', args, removeFrom));
    }
    dispatch(clearRunningBackup({ id, instanceId }));
  };

/** The backup is no longer its instance's running one (it ended or went): the progress bar goes at once. */
export const clearRunningBackup = ({ id, instanceId }: Pick<Backup, 'id' | 'instanceId'>) =>
  backupsApi.util.updateQueryData('backupsSummary', instanceId, (cached) => {
    for (const kind of [cached.database, cached.files]) if (kind.running?.id === id) kind.running = null;
  });
