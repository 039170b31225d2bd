import type { Host, HostList, UpdateHostRequest } from '../../../contracts/hosts';
import { baseApi } from '../../api/baseApi';
import { pushToast } from '../ui/uiSlice';

/** /hosts (admin only): the machines that run instances, and draining one (DESIGN §12). */
export const hostsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getHosts: build.query<HostList, void>({
      query: () => '/hosts',
      providesTags: ['Hosts'],
    }),

    updateHost: build.mutation<Host, UpdateHostRequest & { id: string }>({
      query: ({ id, ...body }) => ({ url: `/hosts/${encodeURIComponent(id)}`, method: 'PUT', body }),
      invalidatesTags: (result) => (result ? ['Hosts'] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (!data) return;
        dispatch(
          data.draining
            ? pushToast({ status: 'success', summary: 'Host draining', detail: `${data.name} keeps its instances but gets no new ones.` })
            : pushToast({ status: 'success', summary: 'Draining stopped', detail: `${data.name} can be given new instances again.` }),
        );
      },
    }),
  }),
});

export const { useGetHostsQuery, useUpdateHostMutation } = hostsApi;
