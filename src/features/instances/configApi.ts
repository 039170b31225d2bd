import type { ConfigRevision, UpdateConfigRequest, UpdateConfigResponse } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { baseApi } from '../../api/baseApi';
import { pushToast, type Toast } from '../ui/uiSlice';
import { instanceTags } from './instancesApi';

export type ApplyChoice = NonNullable<UpdateConfigRequest['apply']>;

// The configuration (instancesApi's instanceConfig) and its revisions change together: one tag.
const { instance, config } = instanceTags;

const path = (id: string, rest = '') => `/instances/${encodeURIComponent(id)}${rest}`;

/** What a save or a restore did, in the words of its toast. */
function savedToast(summary: string, { revision, restart, applied }: UpdateConfigResponse): Omit<Toast, 'id'> {
  const waiting = restart.length === 1 ? '1 change waits for a restart.' : `${restart.length} changes wait for a restart.`;
  const detail = {
    none: 'Saved only: the instance picks it up at its next reload or restart.',
    reloaded: restart.length > 0 ? `Reloaded. ${waiting}` : 'Reloaded: every change is in effect.',
    restarting: 'The instance is restarting to apply it.',
  }[applied];
  return { status: 'success', summary: `${summary} (revision ${revision})`, detail };
}

/**
 * Changing /instances/{id}/config (DESIGN §5, §10): saving with a reload or a restart, and the
 * revisions. The configuration itself is read with instancesApi's instanceConfig.
 */
export const configApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    updateConfiguration: build.mutation<UpdateConfigResponse, UpdateConfigRequest & { instanceId: string }>({
      query: ({ instanceId, ...body }) => ({ url: path(instanceId, '/config'), method: 'PUT', body }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [instance(instanceId), config(instanceId)] : []),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast(savedToast('Configuration saved', data)));
      },
    }),

    configRevisions: build.query<PageOf<ConfigRevision>, { instanceId: string; page: number; pageSize: number }>({
      query: ({ instanceId, ...params }) => ({ url: path(instanceId, '/config/revisions'), params }),
      providesTags: (_result, _error, { instanceId }) => [config(instanceId)],
    }),

    restoreConfigRevision: build.mutation<UpdateConfigResponse, { instanceId: string; revision: number; apply?: ApplyChoice }>({
      query: ({ instanceId, revision, apply }) => ({
        url: path(instanceId, `/config/revisions/${revision}/restore`),
        method: 'POST',
        body: apply ? { apply } : {},
      }),
      invalidatesTags: (result, _error, { instanceId }) => (result ? [instance(instanceId), config(instanceId)] : []),
      async onQueryStarted({ revision }, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(pushToast(savedToast(`Revision ${revision} restored`, data)));
      },
    }),
  }),
});

export const { useUpdateConfigurationMutation, useConfigRevisionsQuery, useRestoreConfigRevisionMutation } = configApi;
