import type { CurrentUser, LoginRequest } from '../../../contracts/auth';
import { baseApi } from '../../api/baseApi';

export interface LoginArgs extends Pick<LoginRequest, 'email' | 'password' | 'twoFactorCode'> {
  /** A persistent cookie ("Keep me signed in") instead of one that ends with the browser session. */
  remember?: boolean;
}

export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    me: build.query<CurrentUser, void>({
      query: () => '/auth/me',
      providesTags: ['me'],
    }),

    // Answers with the signed-in user, so the session starts with a known user and a role.
    login: build.mutation<CurrentUser, LoginArgs>({
      async queryFn({ remember, ...credentials }, _api, _extraOptions, baseQuery) {
        const cookie = remember ? 'useCookies=true' : 'useSessionCookies=true';
        const signIn = await baseQuery({ url: `/auth/login?${cookie}`, method: 'POST', body: credentials });
        if (signIn.error) return { error: signIn.error };
        // The sign-in answer itself is empty: the cookie is the whole result.
        const me = await baseQuery('/auth/me');
        return me.error ? { error: me.error } : { data: me.data as CurrentUser };
      },
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          // Keep the cached 'me' in step without asking the server a second time.
          await dispatch(authApi.util.upsertQueryData('me', undefined, data));
        } catch {
          // A failed sign-in is shown by the login page.
        }
      },
    }),

    // SPEC §4: log out, then invalidate the cached current user; its refetch answers 401.
    logout: build.mutation<void, void>({
      query: () => ({ url: '/auth/logout', method: 'POST' }),
      invalidatesTags: ['me'],
    }),
  }),
});

export const { useMeQuery, useLoginMutation, useLogoutMutation } = authApi;
