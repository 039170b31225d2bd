import type { Instance } from '../../../contracts/instances';
import type {
  CreateRestorePointRequest,
  PitrSettings,
  RecoveryWindow,
  RestorePlan,
  RestorePoint,
  RestoreToPointRequest,
} from '../../../contracts/pitr';
import { baseApi } from '../../api/baseApi';
import { instanceTags } from '../instances/instancesApi';
import { pushToast } from '../ui/uiSlice';

// Backup tags, so a refetch of every backup after a reconnect (missed events) reads these too.
const recoveryWindow = (instanceId: string) => ({ type: 'Backup', id: `recoveryWindow/${instanceId}` }) as const;
const restorePlan = (instanceId: string) => ({ type: 'Backup', id: `restorePlan/${instanceId}` }) as const;

/** The tags of this API, for the saga that follows the hub. */
export const pitrTags = { recoveryWindow, restorePlan };

/** What proves the window on demand: a restore drill into a throwaway copy, or pgBackRest's verify. */
type RecoveryCheckKind = 'drill' | 'verify';

/** A restore to a point in time as the form asks for it; the dry run asks the same. */
export type RestoreToPointArgs = Omit<RestoreToPointRequest, 'dryRun'> & { instanceId: string };

const path = (instanceId: string, rest: string) => `/instances/${encodeURIComponent(instanceId)}${rest}`;

/** Point-in-time recovery of a pg instance (DESIGN §12): its recoverable window, restore points and restores to a moment. */
export const pitrApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    recoveryWindow: build.query<RecoveryWindow, string>({
      query: (instanceId) => path(instanceId, '/recovery-window'),
      providesTags: (_result, _error, instanceId) => [recoveryWindow(instanceId)],
    }),

    /**
     * A dry run: what a restore to this target would start from and replay; nothing changes. Never
     * kept, and read again whenever the window moves, since the WAL to replay grows with it.
     */
    restorePlan: build.query<RestorePlan, RestoreToPointArgs>({
      query: ({ instanceId, ...request }) => ({ url: path(instanceId, '/restore-point'), method: 'POST', body: { ...request, dryRun: true } }),
      // The plan depends on the target alone; the new instance's name rides along because the request has one.
      serializeQueryArgs: ({ queryArgs: { instanceId, target, backupId } }) => ({ instanceId, target, backupId }),
      providesTags: (_result, _error, { instanceId }) => [recoveryWindow(instanceId), restorePlan(instanceId)],
      keepUnusedDataFor: 0,
    }),

    /** A new instance holding the source as it was at the target (202: it is being created). */
    restoreToPoint: build.mutation<Instance, RestoreToPointArgs>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/restore-point'), method: 'POST', body }),
      invalidatesTags: (result) => (result ? [instanceTags.list] : []),
    }),

    /** A named restore point ("before the migration") at the current WAL position. */
    createRestorePoint: build.mutation<RestorePoint, CreateRestorePointRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/restore-points'), method: 'POST', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [recoveryWindow(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Restore point marked', detail: data.name }));
      },
    }),

    /**
     * Starts a restore drill or a verification of the repository (202): the window comes back
     * checking, and the result arrives with the hub's RecoveryWindowChanged.
     */
    checkRecoveryWindow: build.mutation<RecoveryWindow, { instanceId: string; kind: RecoveryCheckKind }>({
      query: ({ instanceId, kind }) => ({ url: path(instanceId, `/pitr/${kind}`), method: 'POST', body: {} }),
      // A 409 (one runs already, or no backup yet): the window read again shows which.
      invalidatesTags: (result, _error, { instanceId }) => (result ? [] : [recoveryWindow(instanceId)]),
      async onQueryStarted({ instanceId }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        // The buttons wait and the busy line shows from now on, not from a refetch.
        if (data) dispatch(pitrApi.util.updateQueryData('recoveryWindow', instanceId, () => data));
      },
    }),

    savePitrSettings: build.mutation<PitrSettings, PitrSettings & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/pitr/settings'), method: 'PUT', body }),
      // The window carries the settings, and a shorter retention may move its start.
      invalidatesTags: (result, _error, { instanceId }) => (result ? [recoveryWindow(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Archive settings saved' }));
      },
    }),
  }),
});

export const {
  useRecoveryWindowQuery,
  useRestorePlanQuery,
  useRestoreToPointMutation,
  useCreateRestorePointMutation,
  useSavePitrSettingsMutation,
  useCheckRecoveryWindowMutation,
} = pitrApi;
