import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

// Fixed at build time by webpack's DefinePlugin; empty means the console's own origin.
const apiUrl = process.env.WARDEN_API_URL ?? '';

export const tagTypes = ['me', 'Instance', 'Group', 'Backup', 'Log', 'User', 'Client', 'Statistics', 'Script', 'Hosts'] as const;

/** The one createApi: features add their endpoints with injectEndpoints (DESIGN §9). */
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({
    baseUrl: apiUrl,
    credentials: 'include',
    prepareHeaders: (headers) => {
      // The server tells an API call from a screen navigation by this header.
      headers.set('Accept', 'application/json');
      return headers;
    },
  }),
  tagTypes,
  // SPEC §9: no refetch on focus, no retry (RTK Query never retries unless told), 5 minutes both ways.
  refetchOnFocus: false,
  keepUnusedDataFor: 300,
  refetchOnMountOrArgChange: 300,
  endpoints: () => ({}),
});
