import type { ClientBuildStatus, ClientPlatform, ClientVersion, DeleteClientVersionResponse } from '../../../contracts/clientVersions';
import { baseApi } from '../../api/baseApi';
import { pushToast } from '../ui/uiSlice';

// Fixed at build time by webpack's DefinePlugin; empty means the console's own origin.
const apiUrl = process.env.WARDEN_API_URL ?? '';

const list = (platform: ClientPlatform) => ({ type: 'Client', id: platform }) as const;
const build = { type: 'Client', id: 'build' } as const;

/** Where a release downloads from: a plain link, so the browser's own download (and its resume) takes it. */
export const clientDownloadUrl = ({ version, platform }: Pick<ClientVersion, 'version' | 'platform'>) =>
  `${apiUrl}/client-versions/download/${encodeURIComponent(version)}?platform=${platform}`;

/** /client-versions (SPEC §7): the command-line client's releases, per platform. */
export const clientsApi = baseApi.injectEndpoints({
  endpoints: (builder) => ({
    clientVersions: builder.query<ClientVersion[], ClientPlatform>({
      query: (platform) => `/client-versions/${platform}`,
      providesTags: (_result, _error, platform) => [list(platform)],
    }),

    clientBuildStatus: builder.query<ClientBuildStatus, void>({
      query: () => '/client-versions/build',
      providesTags: [build],
    }),

    deleteClientVersion: builder.mutation<DeleteClientVersionResponse, Pick<ClientVersion, 'version' | 'platform'>>({
      query: ({ version, platform }) => ({ url: `/client-versions/${encodeURIComponent(version)}`, method: 'DELETE', params: { platform } }),
      invalidatesTags: (result, _error, { platform }) => (result ? [list(platform)] : []),
      async onQueryStarted({ version }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: `Version ${version} removed` }));
      },
    }),
  }),
});

export const { useClientVersionsQuery, useClientBuildStatusQuery, useDeleteClientVersionMutation } = clientsApi;

/** A finished build brings new versions: the lists are fetched again. */
export const clientListTags = [list('windows'), list('containers')];
