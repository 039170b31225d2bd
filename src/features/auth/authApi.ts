import type {
  AuthOptions,
  ConfirmEmailQuery,
  CurrentUser,
  InfoRequest,
  InfoResponse,
  LoginRequest,
  Profile,
  RegisterRequest,
  ResetPasswordRequest,
  TwoFactorRequest,
  TwoFactorResponse,
} from '../../../contracts/auth';
import { baseApi } from '../../api/baseApi';
import { errorStatus } from '../../api/problemText';

export interface LoginArgs extends Pick<LoginRequest, 'email' | 'password' | 'twoFactorCode' | 'twoFactorRecoveryCode'> {
  /** A persistent cookie ("Keep me signed in") instead of one that ends with the browser session. */
  remember?: boolean;
}

/** /auth/confirmEmail answers a line of plain text (as Identity's), a failure problem details in JSON. */
const textOrJson = (response: Response) =>
  response.headers.get('content-type')?.includes('json') ? response.json() : response.text();

export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    me: build.query<CurrentUser, void>({
      query: () => '/auth/me',
      providesTags: ['me'],
    }),

    // The cheap session probe (200 or 401): a 401 goes the one error path and signs the person out.
    checkSession: build.query<void, void>({
      query: () => '/auth/check',
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

    // Whether the sign-in page offers "Create account". A server without this endpoint (or any
    // failure to ask) means no: the link is a convenience, not worth an error on the sign-in page.
    registrationOptions: build.query<AuthOptions, void>({
      async queryFn(_arg, _api, _extraOptions, baseQuery) {
        const answer = await baseQuery('/auth/options');
        const open = !answer.error && (answer.data as Partial<AuthOptions>)?.registrationOpen === true;
        return { data: { registrationOpen: open } };
      },
    }),

    register: build.mutation<void, RegisterRequest>({
      query: (body) => ({ url: '/auth/register', method: 'POST', body }),
    }),

    // A GET that confirms: a query, so a page mounted twice (or opened again from history) asks
    // once. A 401 here is a bad or expired link, not an ended session, so it is an answer — it
    // must not sign anyone out.
    confirmEmail: build.query<EmailConfirmation, ConfirmEmailQuery>({
      async queryFn(params, _api, _extraOptions, baseQuery) {
        const answer = await baseQuery({ url: '/auth/confirmEmail', params, responseHandler: textOrJson });
        if (!answer.error) return { data: { confirmed: true } };
        return errorStatus(answer.error) === 401 ? { data: { confirmed: false } } : { error: answer.error };
      },
      async onQueryStarted(_params, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        // The signed-in user (if it is them) now has a confirmed, perhaps different, address.
        if (data?.confirmed) dispatch(authApi.util.invalidateTags(['me']));
      },
    }),

    resendConfirmationEmail: build.mutation<void, { email: string }>({
      query: (body) => ({ url: '/auth/resendConfirmationEmail', method: 'POST', body }),
    }),

    forgotPassword: build.mutation<void, { email: string }>({
      query: (body) => ({ url: '/auth/forgotPassword', method: 'POST', body }),
    }),

    resetPassword: build.mutation<void, ResetPasswordRequest>({
      query: (body) => ({ url: '/auth/resetPassword', method: 'POST', body }),
    }),

    profile: build.query<Profile, void>({
      query: () => '/auth/profile',
      providesTags: [{ type: 'me', id: 'profile' }],
    }),

    // The address and whether it is confirmed, as Identity's manage endpoint answers them.
    accountInfo: build.query<InfoResponse, void>({
      query: () => '/auth/manage/info',
      providesTags: [{ type: 'me', id: 'info' }],
    }),

    // A new e-mail is only taken once confirmed, so the address shown stays; the answer is the
    // account's info, which the cached one takes. A new password changes nothing shown.
    updateAccountInfo: build.mutation<InfoResponse, InfoRequest>({
      query: (body) => ({ url: '/auth/manage/info', method: 'POST', body }),
      async onQueryStarted(_body, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(authApi.util.upsertQueryData('accountInfo', undefined, data));
      },
    }),

    // POST {} answers the state without changing it (creating the shared key on first use),
    // as ASP.NET Core Identity's endpoint does: a query, asked when the profile needs it.
    twoFactorStatus: build.query<TwoFactorResponse, void>({
      query: () => ({ url: '/auth/manage/2fa', method: 'POST', body: {} }),
      providesTags: [{ type: 'me', id: '2fa' }],
    }),

    // Enabling or disabling changes the current user and the profile as well as the 2FA state.
    twoFactor: build.mutation<TwoFactorResponse, TwoFactorRequest>({
      query: (body) => ({ url: '/auth/manage/2fa', method: 'POST', body }),
      invalidatesTags: (result) => (result ? ['me'] : []),
    }),
  }),
});

export interface EmailConfirmation {
  confirmed: boolean;
}

export const {
  useMeQuery,
  useLoginMutation,
  useLogoutMutation,
  useRegistrationOptionsQuery,
  useRegisterMutation,
  useConfirmEmailQuery,
  useResendConfirmationEmailMutation,
  useForgotPasswordMutation,
  useResetPasswordMutation,
  useProfileQuery,
  useAccountInfoQuery,
  useUpdateAccountInfoMutation,
  useTwoFactorStatusQuery,
  useTwoFactorMutation,
} = authApi;
