import type { DebugRequest, PingResponse, ServerInfo } from '../../../contracts/debug';
import type { PageOf } from '../../../contracts/page';
import type { OutboxMessage } from '../../../contracts/users';
import { baseApi } from '../../api/baseApi';
import { pushToast } from '../ui/uiSlice';

/** A ping's answer and how long the round trip took, as the browser measured it. */
export interface PingResult extends PingResponse {
  roundTripMs: number;
}

export interface BroadcastArgs {
  text: string;
  to: 'me' | 'all';
}

export interface OutboxArgs {
  page: number;
  pageSize: number;
}

const debugCall = (body: DebugRequest) => ({ url: '/debug', method: 'POST', body });

export const debugApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    debugInfo: build.query<ServerInfo, void>({
      query: () => debugCall({ action: 'info' }),
    }),

    ping: build.mutation<PingResult, void>({
      async queryFn(_arg, _api, _extraOptions, baseQuery) {
        const sentAt = performance.now();
        const answer = await baseQuery(debugCall({ action: 'ping' }));
        if (answer.error) return { error: answer.error };
        return { data: { ...(answer.data as PingResponse), roundTripMs: Math.round(performance.now() - sentAt) } };
      },
    }),

    // The message comes back through the hub as a DebugMessage event (see debugMessageSaga).
    broadcast: build.mutation<void, BroadcastArgs>({
      query: ({ text, to }) => debugCall({ action: 'broadcast', event: 'DebugMessage', payload: { text }, to }),
      async onQueryStarted(_args, { dispatch, queryFulfilled }) {
        try {
          await queryFulfilled;
          dispatch(pushToast({ status: 'success', summary: 'Message sent' }));
        } catch {
          // A failure is toasted by the one error path.
        }
      },
    }),

    // GET /admin/outbox: the e-mails kept while no SMTP server is configured (DESIGN §4).
    outbox: build.query<PageOf<OutboxMessage>, OutboxArgs>({
      query: (params) => ({ url: '/admin/outbox', params }),
    }),
  }),
});

export const { useDebugInfoQuery, usePingMutation, useBroadcastMutation, useOutboxQuery } = debugApi;
