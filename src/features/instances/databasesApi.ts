import type { CreateDatabaseRequest, CreateRoleRequest, Database, DbRole, UpdateRoleRequest } from '../../../contracts/databases';
import type { ConnectionSecret } from '../../../contracts/instances';
import { baseApi } from '../../api/baseApi';
import { pushToast } from '../ui/uiSlice';

// A pg instance's databases and roles are cached apart from the instance; a role change can
// change the databases list (a dropped role's databases go to the owner), so each invalidates both.
const databases = (id: string) => ({ type: 'Instance', id: `${id}/databases` }) as const;
const roles = (id: string) => ({ type: 'Instance', id: `${id}/roles` }) as const;

const path = (id: string, rest = '') => `/instances/${encodeURIComponent(id)}${rest}`;

/** Shared by the saga that asks first and the section that shows the answer (RTK Query fixedCacheKey). */
export const superuserSecretKey = (id: string) => `superuser-secret/${id}`;
export const rotatedSecretKey = (id: string) => `rotated-secret/${id}`;

/**
 * /instances/{id}/databases, /roles and the owner's and superuser's passwords (DESIGN §10, §11).
 * Passwords are answers to mutations: shown once, never kept in a query cache.
 */
export const databasesApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    instanceDatabases: build.query<Database[], string>({
      query: (id) => path(id, '/databases'),
      providesTags: (_result, _error, id) => [databases(id)],
    }),

    createDatabase: build.mutation<Database, CreateDatabaseRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/databases'), method: 'POST', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [databases(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Database created', detail: `${data.name}, owned by ${data.owner}` }));
      },
    }),

    dropDatabase: build.mutation<null, { instanceId: string; name: string }>({
      query: ({ instanceId, name }) => ({ url: path(instanceId, `/databases/${encodeURIComponent(name)}`), method: 'DELETE' }),
      invalidatesTags: (_result, error, { instanceId }) => (error ? [] : [databases(instanceId)]),
      async onQueryStarted({ name }, { dispatch, queryFulfilled }) {
        const done = await queryFulfilled.then(() => true).catch(() => false);
        if (done) dispatch(pushToast({ status: 'success', summary: 'Database dropped', detail: name }));
      },
    }),

    instanceRoles: build.query<DbRole[], string>({
      query: (id) => path(id, '/roles'),
      providesTags: (_result, _error, id) => [roles(id)],
    }),

    createInstanceRole: build.mutation<DbRole, CreateRoleRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/roles'), method: 'POST', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [roles(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Role created', detail: data.name }));
      },
    }),

    updateInstanceRole: build.mutation<DbRole, UpdateRoleRequest & { instanceId: string; name: string }>({
      query: ({ instanceId, name, ...body }) => ({ url: path(instanceId, `/roles/${encodeURIComponent(name)}`), method: 'PUT', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [roles(instanceId), databases(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Role saved', detail: data.name }));
      },
    }),

    dropInstanceRole: build.mutation<null, { instanceId: string; name: string }>({
      query: ({ instanceId, name }) => ({ url: path(instanceId, `/roles/${encodeURIComponent(name)}`), method: 'DELETE' }),
      invalidatesTags: (_result, error, { instanceId }) => (error ? [] : [roles(instanceId), databases(instanceId)]),
      async onQueryStarted({ name }, { dispatch, queryFulfilled }) {
        const done = await queryFulfilled.then(() => true).catch(() => false);
        if (done) dispatch(pushToast({ status: 'success', summary: 'Role dropped', detail: name }));
      },
    }),

    /** Admins only, audited as dangerous. */
    revealSuperuserPassword: build.mutation<ConnectionSecret, string>({
      query: (id) => ({ url: path(id, '/connection/secret'), method: 'POST', params: { role: 'superuser' }, body: {} }),
    }),

    /** The owner's new password; the old one stops working at once. */
    rotateOwnerPassword: build.mutation<ConnectionSecret, string>({
      query: (id) => ({ url: path(id, '/connection/rotate'), method: 'POST', body: {} }),
      async onQueryStarted(_id, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast({ status: 'success', summary: 'Password rotated', detail: 'The old password no longer works.' }));
      },
    }),
  }),
});

export const {
  useInstanceDatabasesQuery,
  useCreateDatabaseMutation,
  useInstanceRolesQuery,
  useCreateInstanceRoleMutation,
  useUpdateInstanceRoleMutation,
  useRevealSuperuserPasswordMutation,
  useRotateOwnerPasswordMutation,
} = databasesApi;
