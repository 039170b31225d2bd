import type { Group, GroupMember, GroupRequest } from '../../../contracts/groups';
import type { PageOf } from '../../../contracts/page';
import { baseApi } from '../../api/baseApi';
import type { ListParams } from '../../components/useListParams';
import { pushToast } from '../ui/uiSlice';

/** An instance as the group screen lists it; the full shape belongs to the instances feature. */
export interface GroupInstance {
  id: string;
  name: string;
  type?: string;
  status?: string;
}

export interface GroupRef {
  id: string;
  name: string;
}

type InGroup<Args> = Args & { groupId: string };

const list = { type: 'Group', id: 'LIST' } as const;
const group = (id: string) => ({ type: 'Group', id }) as const;
// A group's members and its candidates are lists of their own, tagged per group.
const members = (id: string) => ({ type: 'Group', id: `${id}/members` }) as const;
const available = (id: string) => ({ type: 'Group', id: `${id}/available` }) as const;
// The profile lists the signed-in user's groups by name.
const profile = { type: 'me', id: 'profile' } as const;

/** The tags of this API, for the saga that follows other people's changes. */
export const groupTags = { list, group, members, available, profile };

const path = (groupId: string, rest = '') => `/groups/${encodeURIComponent(groupId)}${rest}`;

/** /groups (DESIGN §5, §10): admins see and change all groups, a regular user sees their own. */
export const groupsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    groups: build.query<PageOf<Group>, ListParams>({
      query: (params) => ({ url: '/groups', params }),
      providesTags: (result) => [list, ...(result?.items ?? []).map(({ id }) => group(id))],
    }),

    /** The unpaged picker list. */
    allGroups: build.query<GroupRef[], void>({
      query: () => '/groups/all',
      providesTags: [list],
    }),

    group: build.query<Group, string>({
      query: (id) => path(id),
      providesTags: (_result, _error, id) => [group(id)],
    }),

    createGroup: build.mutation<Group, GroupRequest>({
      query: (body) => ({ url: '/groups', method: 'POST', body }),
      invalidatesTags: (result) => (result ? [list] : []),
    }),

    updateGroup: build.mutation<Group, InGroup<GroupRequest>>({
      query: ({ groupId, ...body }) => ({ url: path(groupId), method: 'PUT', body }),
      invalidatesTags: (result, _error, { groupId }) => (result ? [group(groupId), list, profile] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Group saved', detail: data.name }));
      },
    }),

    // The deleted group's own entry is left alone: refetching it would only answer 404 while
    // the screen moves on to the list.
    deleteGroup: build.mutation<void, { groupId: string; moveInstances?: boolean }>({
      query: ({ groupId, moveInstances }) => ({
        url: path(groupId),
        method: 'DELETE',
        params: moveInstances ? { moveInstances: true } : undefined,
      }),
      invalidatesTags: (_result, error, { moveInstances }) =>
        error ? [] : [list, profile, ...(moveInstances ? [{ type: 'Instance' as const, id: 'LIST' }] : [])],
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const deleted = await queryFulfilled.then(() => true, () => false);
        if (deleted) dispatch(pushToast({ status: 'success', summary: 'Group deleted' }));
      },
    }),

    groupMembers: build.query<PageOf<GroupMember>, InGroup<ListParams>>({
      query: ({ groupId, ...params }) => ({ url: path(groupId, '/users'), params }),
      providesTags: (_result, _error, { groupId }) => [members(groupId)],
    }),

    availableUsers: build.query<PageOf<GroupMember>, InGroup<ListParams>>({
      query: ({ groupId, ...params }) => ({ url: path(groupId, '/available-users'), params }),
      providesTags: (_result, _error, { groupId }) => [available(groupId)],
    }),

    addMembers: build.mutation<void, { groupId: string; userIds: string[] }>({
      query: ({ groupId, userIds }) => ({ url: path(groupId, '/users'), method: 'POST', body: { userIds } }),
      invalidatesTags: (_result, error, { groupId }) =>
        error ? [] : [group(groupId), members(groupId), available(groupId), list, profile],
    }),

    removeMember: build.mutation<void, { groupId: string; userId: string }>({
      query: ({ groupId, userId }) => ({ url: path(groupId, `/users/${encodeURIComponent(userId)}`), method: 'DELETE' }),
      invalidatesTags: (_result, error, { groupId }) =>
        error ? [] : [group(groupId), members(groupId), available(groupId), list, profile],
    }),

    groupInstances: build.query<PageOf<GroupInstance>, InGroup<Pick<ListParams, 'page' | 'pageSize'>>>({
      query: ({ groupId, ...params }) => ({ url: path(groupId, '/instances'), params }),
      // Whatever changes instances (created, moved, deleted) invalidates their list.
      providesTags: [{ type: 'Instance', id: 'LIST' }],
    }),
  }),
});

export const {
  useGroupsQuery,
  useAllGroupsQuery,
  useGroupQuery,
  useCreateGroupMutation,
  useUpdateGroupMutation,
  useDeleteGroupMutation,
  useGroupMembersQuery,
  useAvailableUsersQuery,
  useAddMembersMutation,
  useRemoveMemberMutation,
  useGroupInstancesQuery,
} = groupsApi;
