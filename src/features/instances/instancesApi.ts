import type { ThunkAction, UnknownAction } from '@reduxjs/toolkit';
import type { ClusterHistoryEntry, ClusterTiming, FailoverRequest, SwitchoverRequest } from '../../../contracts/clusters';
import type {
  ConnectionInfo,
  ConnectionSecret,
  CreateInstanceRequest,
  DeleteInstanceResponse,
  Instance,
  InstanceConfig,
  InstanceMember,
  IsLatestResponse,
  UpdateInstanceRequest,
  ValidateNameResponse,
} from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { baseApi } from '../../api/baseApi';
import type { ListParams } from '../../components/useListParams';
import { pushToast } from '../ui/uiSlice';
import type { InstanceAction } from './instanceActions';

/** GET /instances: the list state plus its filters, as the URL query carries them. */
export interface InstancesArgs extends ListParams {
  type?: string;
  status?: string;
  health?: string;
  /** A group id, or 'none' for instances in no group. */
  groupId?: string;
}

const list = { type: 'Instance', id: 'LIST' } as const;
const instance = (id: string) => ({ type: 'Instance', id }) as const;
// The configuration of one instance is cached apart from the instance itself.
const config = (id: string) => ({ type: 'Instance', id: `${id}/config` }) as const;
// Its members too: read again whenever the hub says the instance changed (a member lost or back).
const members = (id: string) => ({ type: 'Instance', id: `${id}/members` }) as const;
// A cluster's failovers and switchovers: a new one shows up as a change of its members.
const history = (id: string) => ({ type: 'Instance', id: `${id}/history` }) as const;

/** The tags of this API, for the sagas and the configuration editor that invalidate them. */
export const instanceTags = { list, instance, config, members, history };

const path = (id: string, rest = '') => `/instances/${encodeURIComponent(id)}${rest}`;

const actionPaths: Record<InstanceAction, string> = {
  start: '/start',
  stop: '/stop',
  restart: '/restart',
  reload: '/reload-configuration',
};

/** What can be done to one member of a PostgreSQL cluster; reinitialize rebuilds it from the leader. */
export type MemberAction = 'restart' | 'reinitialize';

/**
 * A 202's instance, its `operation` set, into the cache: the buttons wait for the operation from
 * now on, not from the next hub event. An event may have brought a newer state while the answer
 * was on its way: the newest is kept.
 */
async function adoptStartedOperation(
  _args: unknown,
  // The thunk's state is left open (never): naming this API's own here would make its type refer to itself.
  { dispatch, queryFulfilled }: { dispatch: (thunk: ThunkAction<void, never, unknown, UnknownAction>) => unknown; queryFulfilled: Promise<{ data: Instance }> },
): Promise<void> {
  const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
  if (data) dispatch(patchCachedInstance(data.id, (cached) => void (data.version >= cached.version && Object.assign(cached, data))));
}

/** /instances (DESIGN §5, §10): a regular user sees the instances of their groups, admins see all. */
export const instancesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    instances: build.query<PageOf<Instance>, InstancesArgs>({
      query: (params) => ({ url: '/instances', params }),
      providesTags: (result) => [list, ...(result?.items ?? []).map(({ id }) => instance(id))],
    }),

    instance: build.query<Instance, string>({
      query: (id) => path(id),
      providesTags: (_result, _error, id) => [instance(id)],
      // An answer that left the server before an event the hub has brought since (an operation's
      // end, say) is older than the cache: it does not undo what the event said.
      merge: (cached, answer) => (answer.version >= cached.version ? answer : undefined),
    }),

    // A question, not a change: POST only because the name travels in the body. Never kept,
    // since a name free a minute ago may be taken now.
    validateInstanceName: build.query<ValidateNameResponse, string>({
      query: (name) => ({ url: '/instances/validate-name', method: 'POST', body: { name } }),
      keepUnusedDataFor: 0,
    }),

    createInstance: build.mutation<Instance, CreateInstanceRequest>({
      query: (body) => ({ url: '/instances', method: 'POST', body }),
      invalidatesTags: (result) => (result ? [list] : []),
    }),

    updateInstance: build.mutation<Instance, UpdateInstanceRequest & { id: string }>({
      query: ({ id, ...body }) => ({ url: path(id), method: 'PUT', body }),
      invalidatesTags: (result, _error, { id }) => (result ? [instance(id), list] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Instance saved', detail: data.name }));
      },
    }),

    /** A new instance from a copy of this one's data (202: it is being created). */
    cloneInstance: build.mutation<Instance, { id: string; name: string; members?: number }>({
      query: ({ id, ...body }) => ({ url: path(id, '/clone'), method: 'POST', body }),
      invalidatesTags: (result) => (result ? [list] : []),
    }),

    // The deleted instance's own entry is left alone: refetching it would only answer 404.
    deleteInstance: build.mutation<DeleteInstanceResponse, { id: string; force?: boolean }>({
      query: ({ id, force }) => ({ url: path(id), method: 'DELETE', params: force ? { force: true } : undefined }),
      invalidatesTags: (result) => (result ? [list] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Instance deleted', detail: data.backups }));
      },
    }),

    /** Start, stop, restart or reload: 202 with the instance, its `operation` set. */
    runInstanceAction: build.mutation<Instance, { id: string; action: InstanceAction }>({
      query: ({ id, action }) => ({ url: path(id, actionPaths[action]), method: 'POST', body: {} }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Hands a PostgreSQL cluster's lead to another member; 409 onto one that lags, unless forced. */
    switchover: build.mutation<Instance, SwitchoverRequest & { id: string }>({
      query: ({ id, ...body }) => ({ url: path(id, '/cluster/switchover'), method: 'POST', body }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Cancels the switchover scheduled for a time to come. */
    cancelSwitchover: build.mutation<Instance, { id: string }>({
      query: ({ id }) => ({ url: path(id, '/cluster/switchover'), method: 'DELETE' }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Makes a member lead whatever the others say (admins): what the old leader had not sent is lost. */
    failover: build.mutation<Instance, FailoverRequest & { id: string }>({
      query: ({ id, ...body }) => ({ url: path(id, '/cluster/failover'), method: 'POST', body }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Pauses automatic failover for maintenance, or resumes it; the instance's health says which. */
    setFailoverPaused: build.mutation<Instance, { id: string; paused: boolean }>({
      query: ({ id, paused }) => ({ url: path(id, paused ? '/cluster/pause' : '/cluster/resume'), method: 'POST', body: {} }),
      onQueryStarted: adoptStartedOperation,
    }),

    memberAction: build.mutation<Instance, { id: string; ordinal: number; action: MemberAction }>({
      query: ({ id, ordinal, action }) => ({ url: path(id, `/members/${ordinal}/${action}`), method: 'POST', body: {} }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Grows a cluster by one member: etcd's member add, or a PostgreSQL replica copied from the leader. */
    addClusterMember: build.mutation<Instance, { id: string }>({
      query: ({ id }) => ({ url: path(id, '/members'), method: 'POST', body: {} }),
      onQueryStarted: adoptStartedOperation,
    }),

    /** Shrinks a cluster by its last member; refused (409) when etcd would lose its quorum, or while a PostgreSQL member leads. */
    removeClusterMember: build.mutation<Instance, { id: string; ordinal: number }>({
      query: ({ id, ordinal }) => ({ url: path(id, `/members/${ordinal}`), method: 'DELETE' }),
      onQueryStarted: adoptStartedOperation,
    }),

    members: build.query<InstanceMember[], string>({
      query: (id) => path(id, '/members'),
      providesTags: (_result, _error, id) => [members(id)],
    }),

    clusterHistory: build.query<ClusterHistoryEntry[], string>({
      query: (id) => path(id, '/cluster/history'),
      providesTags: (_result, _error, id) => [history(id)],
    }),

    /** The preset's values and computed worst case; fixed for the cluster's life, so read once. */
    clusterTiming: build.query<ClusterTiming, string>({
      query: (id) => path(id, '/cluster/timing'),
    }),

    connection: build.query<ConnectionInfo, string>({
      query: (id) => path(id, '/connection'),
      providesTags: (_result, _error, id) => [instance(id)],
    }),

    /** The owner role's password, for any member of the instance's group; audited, shown once and never cached. */
    revealPassword: build.mutation<ConnectionSecret, string>({
      query: (id) => ({ url: path(id, '/connection/secret'), method: 'POST', body: {} }),
    }),

    instanceConfig: build.query<InstanceConfig, string>({
      query: (id) => path(id, '/config'),
      providesTags: (_result, _error, id) => [config(id)],
    }),

    isLatest: build.query<IsLatestResponse, string>({
      query: (id) => path(id, '/is-latest'),
      providesTags: (_result, _error, id) => [instance(id)],
    }),

  }),
});

export const {
  useInstancesQuery,
  useInstanceQuery,
  useValidateInstanceNameQuery,
  useCreateInstanceMutation,
  useCloneInstanceMutation,
  useUpdateInstanceMutation,
  useRunInstanceActionMutation,
  useSwitchoverMutation,
  useFailoverMutation,
  useSetFailoverPausedMutation,
  useMemberActionMutation,
  useMembersQuery,
  useClusterHistoryQuery,
  useClusterTimingQuery,
  useConnectionQuery,
  useRevealPasswordMutation,
  useInstanceConfigQuery,
  useIsLatestQuery,
} = instancesApi;

/** The API cache, the only state a cache thunk reads: not RootState, as the root reducer imports this module (through the updates slice). */
type ApiState = Parameters<typeof instancesApi.util.selectCachedArgsForQuery>[0];
type CacheThunk = ThunkAction<void, ApiState, unknown, UnknownAction>;

/**
 * Changes an instance wherever it is cached — its own entry and every cached page of the list
 * that shows it — so a status or an operation appears at once, without a refetch.
 */
export const patchCachedInstance =
  (id: string, change: (cached: Instance) => void): CacheThunk =>
  (dispatch, getState) => {
    dispatch(instancesApi.util.updateQueryData('instance', id, change));
    for (const args of instancesApi.util.selectCachedArgsForQuery(getState(), 'instances')) {
      dispatch(
        instancesApi.util.updateQueryData('instances', args, (page) => {
          const row = page.items.find((item) => item.id === id);
          if (row) change(row);
        }),
      );
    }
  };
