import { createAction, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { HubEventName, HubGroupName } from '../../../contracts/hub';

/** SPEC §4: the connection's states, named as @microsoft/signalr names them. */
export type ConnectionState = 'Disconnected' | 'Connecting' | 'Connected' | 'Disconnecting' | 'Reconnecting';

export interface GroupRef {
  name: HubGroupName;
  args: (string | null)[];
}

export interface JoinedGroup extends GroupRef {
  /** How many mounted pages asked for it: the hub leaves it when the last one goes. */
  count: number;
}

export interface ReceivedEvent {
  name: HubEventName;
  payload: unknown;
  /** When the browser received it (ISO 8601). */
  at: string;
}

export interface RealtimeState {
  connection: ConnectionState;
  /** Why the connection last failed or closed, for the indicator and the debug page. */
  error: string | null;
  joined: Record<string, JoinedGroup>;
  /** The newest pushed events, newest first, for the debug page. */
  recent: ReceivedEvent[];
}

export const recentEventsKept = 50;

const initialState: RealtimeState = { connection: 'Disconnected', error: null, joined: {}, recent: [] };

/**
 * One key per server-side group. The server reads a missing argument as null (JoinLogs() and
 * JoinLogs(null) are the same group), so they share a key and a refcount here too.
 */
export const groupKey = ({ name, args }: GroupRef) => `${name}(${args.map((a) => a ?? '').join(',')})`;

const eventPrefix = 'realtime/event/';

// A type, not an interface, so it passes where Redux expects an UnknownAction.
export type HubEventAction<Payload = unknown> = {
  type: string;
  payload: Payload;
  meta: { receivedAt: string };
};

export const hubEventType = (name: HubEventName) => `${eventPrefix}${name}`;

/**
 * Every pushed event becomes `realtime/event/<Name>` with the event's payload; the time it
 * arrived rides in meta, so the reducer stays pure.
 */
export const hubEvent = (name: HubEventName, payload: unknown, receivedAt: string): HubEventAction => ({
  type: hubEventType(name),
  payload,
  meta: { receivedAt },
});
export const isHubEvent = (action: { type: string }): action is HubEventAction => action.type.startsWith(eventPrefix);
export const hubEventName = (action: { type: string }) => action.type.slice(eventPrefix.length) as HubEventName;

/** The signed-in layout mounted or unmounted: the connection lives while it is shown (SPEC §4). */
export const layoutEntered = createAction('realtime/layoutEntered');
export const layoutLeft = createAction('realtime/layoutLeft');
/** The indicator's retry after the connection failed or gave up. */
export const retryRequested = createAction('realtime/retryRequested');

export const realtimeSlice = createSlice({
  name: 'realtime',
  initialState,
  reducers: {
    connectionChanged(state, { payload }: PayloadAction<{ state: ConnectionState; error?: string | null }>) {
      state.connection = payload.state;
      if (payload.error !== undefined) state.error = payload.error;
      else if (payload.state === 'Connected') state.error = null;
    },
    groupJoined(state, { payload }: PayloadAction<GroupRef>) {
      const key = groupKey(payload);
      const joined = state.joined[key];
      if (joined) joined.count += 1;
      else state.joined[key] = { ...payload, count: 1 };
    },
    groupLeft(state, { payload }: PayloadAction<GroupRef>) {
      const key = groupKey(payload);
      const joined = state.joined[key];
      if (!joined) return;
      joined.count -= 1;
      if (joined.count <= 0) delete state.joined[key];
    },
  },
  extraReducers: (builder) => {
    builder.addMatcher(isHubEvent, (state, action) => {
      state.recent.unshift({ name: hubEventName(action), payload: action.payload, at: action.meta.receivedAt });
      if (state.recent.length > recentEventsKept) state.recent.length = recentEventsKept;
    });
  },
});

export const { connectionChanged, groupJoined, groupLeft } = realtimeSlice.actions;
