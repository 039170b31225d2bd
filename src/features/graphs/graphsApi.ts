import type { GraphsQuery, GraphsResponse } from '../../../contracts/instances';
import { baseApi } from '../../api/baseApi';

/** GET /instances/graphs: instances created per bucket, by type, with the running count. */
export const graphsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    instanceCreationGraph: build.query<GraphsResponse, GraphsQuery>({
      query: (params) => ({ url: '/instances/graphs', params }),
      // A created or deleted instance invalidates the instance list, and with it these counts.
      providesTags: [{ type: 'Instance', id: 'LIST' }],
    }),
  }),
});

export const { useInstanceCreationGraphQuery } = graphsApi;
