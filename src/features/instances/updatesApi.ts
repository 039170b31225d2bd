import type { Instance, UpdatableInstance } from '../../../contracts/instances';
import { baseApi } from '../../api/baseApi';
import { instanceTags } from './instancesApi';

const { list, instance } = instanceTags;

const path = (id: string, rest: string) => `/instances/${encodeURIComponent(id)}${rest}`;

/**
 * Engine updates (DESIGN §5): which instances run an older engine than the newest installed, and
 * updating one. Whether one instance is on the newest is instancesApi's isLatest.
 */
export const updatesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    updatableInstances: build.query<UpdatableInstance[], void>({
      query: () => '/instances/updatable',
      providesTags: (result) => [list, ...(result ?? []).map((item) => instance(item.instance.id))],
    }),

    /** 202: the update runs as an operation; InstanceUpdated and OperationCompleted tell how it goes. */
    updateEngine: build.mutation<Instance, string>({
      query: (id) => ({ url: path(id, '/update'), method: 'POST', body: {} }),
      invalidatesTags: (result, _error, id) => (result ? [instance(id)] : []),
    }),
  }),
});

export const { useUpdatableInstancesQuery, useUpdateEngineMutation } = updatesApi;
