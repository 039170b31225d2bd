import type { PageOf } from '../../../contracts/page';
import type { Role } from '../../../contracts/roles';
import type {
  ChangePasswordRequest,
  CreateUserRequest,
  SessionsEnded,
  UnlockResult,
  UpdateUserRequest,
  User,
} from '../../../contracts/users';
import { baseApi } from '../../api/baseApi';
import type { RootState } from '../../app/rootReducer';
import type { ListParams } from '../../components/useListParams';
import { selectCurrentUser } from '../auth/selectors';
import { pushToast } from '../ui/uiSlice';

export interface UsersArgs extends ListParams {
  role?: string;
  /** 'true' or 'false' as the query string carries it. */
  disabled?: string;
}

const list = { type: 'User', id: 'LIST' } as const;

/** /admin/users (admin only, DESIGN §10). */
export const usersApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    users: build.query<PageOf<User>, UsersArgs>({
      query: (params) => ({ url: '/admin/users', params }),
      providesTags: (result) => [list, ...(result?.items ?? []).map(({ id }) => ({ type: 'User' as const, id }))],
    }),

    user: build.query<User, string>({
      query: (id) => `/admin/users/${encodeURIComponent(id)}`,
      providesTags: (_result, _error, id) => [{ type: 'User', id }],
    }),

    roles: build.query<Role[], void>({
      query: () => '/admin/users/roles',
    }),

    createUser: build.mutation<User, CreateUserRequest>({
      query: (body) => ({ url: '/admin/users', method: 'POST', body }),
      invalidatesTags: (result) => (result ? [list] : []),
      async onQueryStarted(_body, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'User created', detail: data.email }));
      },
    }),

    updateUser: build.mutation<User, UpdateUserRequest & { id: string }>({
      query: ({ id, ...body }) => ({ url: `/admin/users/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: (result, _error, { id }) => (result ? [{ type: 'User', id }, list] : []),
      async onQueryStarted({ disabled }, { dispatch, getState, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        // An admin who changed their own account: the console's idea of them must follow.
        if (selectCurrentUser(getState() as RootState)?.id === data.id) dispatch(baseApi.util.invalidateTags(['me']));
        if (disabled === true) {
          dispatch(pushToast({ status: 'success', summary: 'User disabled', detail: 'All sessions of this user were ended.' }));
        } else if (disabled === false) {
          dispatch(pushToast({ status: 'success', summary: 'User enabled', detail: data.email }));
        } else {
          dispatch(pushToast({ status: 'success', summary: 'Role changed', detail: `${data.email} is now ${data.role}.` }));
        }
      },
    }),

    // The user's record does not change (their sessions do), so no tag is invalidated.
    changeUserPassword: build.mutation<SessionsEnded, ChangePasswordRequest>({
      query: (body) => ({ url: '/admin/users/change-password', method: 'POST', body }),
      async onQueryStarted(_body, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        const ended = data.sessionsEnded === 1 ? '1 session was ended.' : `${data.sessionsEnded} sessions were ended.`;
        dispatch(pushToast({ status: 'success', summary: 'Password reset', detail: ended }));
      },
    }),

    // The user's record shows their lockout, in the list and on their page.
    unlockUser: build.mutation<UnlockResult, { id: string; email: string }>({
      query: ({ id }) => ({ url: `/admin/users/${encodeURIComponent(id)}/unlock`, method: 'POST' }),
      invalidatesTags: (result, _error, { id }) => (result ? [{ type: 'User', id }, list] : []),
      async onQueryStarted({ email }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        const detail = data.locksLifted === 0 ? `${email} was not locked out.` : `${email} can sign in again from everywhere.`;
        dispatch(pushToast({ status: 'success', summary: 'Sign-in unlocked', detail }));
      },
    }),

    resetUserTwoFactor: build.mutation<User, string>({
      query: (id) => ({ url: `/admin/users/${encodeURIComponent(id)}/reset-2fa`, method: 'POST' }),
      invalidatesTags: (result, _error, id) => (result ? [{ type: 'User', id }, list] : []),
      async onQueryStarted(_id, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        dispatch(pushToast({ status: 'success', summary: 'Two-factor reset', detail: `${data.email} signs in with the password alone now.` }));
      },
    }),
  }),
});

export const {
  useUsersQuery,
  useUserQuery,
  useRolesQuery,
  useCreateUserMutation,
  useUpdateUserMutation,
  useChangeUserPasswordMutation,
  useUnlockUserMutation,
  useResetUserTwoFactorMutation,
} = usersApi;
