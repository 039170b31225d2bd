import { eventChannel, type EventChannel, type SagaIterator, type Task } from 'redux-saga';
import { call, cancel, cancelled, fork, put, race, select, take, takeEvery } from 'redux-saga/effects';
import { hubEvents } from '../../../contracts/hub';
import { baseApi } from '../../api/baseApi';
import type { RootState } from '../../app/store';
import { selectIsAuthenticated } from '../auth/selectors';
import { pushToast } from '../ui/uiSlice';
import type { HubConnectionLike, HubFactory } from './hubConnection';
import {
  connectionChanged,
  groupJoined,
  groupKey,
  groupLeft,
  hubEvent,
  layoutEntered,
  layoutLeft,
  retryRequested,
  type GroupRef,
} from './realtimeSlice';

type LinkSignal =
  | { kind: 'event'; action: ReturnType<typeof hubEvent> }
  | { kind: 'reconnecting'; error?: string }
  | { kind: 'reconnected' }
  | { kind: 'closed'; error?: string };

/** Bridges the connection's callbacks into the saga; closing the channel unregisters the handlers. */
function linkChannel(connection: HubConnectionLike): EventChannel<LinkSignal> {
  return eventChannel((emit) => {
    for (const name of hubEvents) connection.on(name, (payload) => emit({ kind: 'event', action: hubEvent(name, payload) }));
    connection.onreconnecting((error) => emit({ kind: 'reconnecting', error: error?.message }));
    connection.onreconnected(() => emit({ kind: 'reconnected' }));
    connection.onclose((error) => emit({ kind: 'closed', error: error?.message }));
    return () => {
      for (const name of hubEvents) connection.off(name);
    };
  });
}

const selectJoined = (state: RootState) => Object.values(state.realtime.joined);

function* invokeGroup(connection: HubConnectionLike, verb: 'Join' | 'Leave', group: GroupRef): SagaIterator {
  try {
    yield call([connection, connection.invoke], `${verb}${group.name}`, ...group.args);
  } catch (error) {
    yield put(pushToast({ status: 'error', summary: `Could not ${verb.toLowerCase()} ${group.name}`, detail: String((error as Error).message ?? error) }));
  }
}

/** After a reconnect the server has forgotten our groups, and events may have been missed. */
function* rejoinAndRefresh(connection: HubConnectionLike): SagaIterator {
  const joined: GroupRef[] = yield select(selectJoined);
  for (const group of joined) yield fork(invokeGroup, connection, 'Join', group);
  yield put(baseApi.util.invalidateTags(['Instance', 'Group', 'Backup', 'Log', 'User', 'Statistics']));
}

/** Pages join and leave through the store; the hub hears only the first join and the last leave. */
function* groupRequests(connection: HubConnectionLike): SagaIterator {
  yield takeEvery([groupJoined.type, groupLeft.type], function* (
    action: ReturnType<typeof groupJoined> | ReturnType<typeof groupLeft>,
  ): SagaIterator {
    const state: RootState = yield select();
    if (state.realtime.connection !== 'Connected') return; // joined on (re)connect
    const stillJoined = state.realtime.joined[groupKey(action.payload)];
    if (groupJoined.match(action) && stillJoined?.count === 1) yield fork(invokeGroup, connection, 'Join', action.payload);
    if (groupLeft.match(action) && !stillJoined) yield fork(invokeGroup, connection, 'Leave', action.payload);
  });
}

/**
 * One connection's life: connect, re-join, relay events, follow the client's automatic reconnects.
 * Ends when the client gives up or closes; cancelling it stops the connection.
 */
export function* connectionSaga(createHub: HubFactory): SagaIterator {
  const connection = createHub();
  const channel: EventChannel<LinkSignal> = yield call(linkChannel, connection);
  let groups: Task | undefined;
  try {
    yield put(connectionChanged({ state: 'Connecting' }));
    try {
      yield call([connection, connection.start]);
    } catch (error) {
      const message = String((error as Error).message ?? error);
      yield put(connectionChanged({ state: 'Disconnected', error: message }));
      yield put(pushToast({ status: 'error', summary: 'Websocket connection failed', detail: message }));
      return;
    }
    yield put(connectionChanged({ state: 'Connected' }));
    groups = yield fork(groupRequests, connection);
    yield fork(rejoinAndRefresh, connection);
    for (;;) {
      const signal: LinkSignal = yield take(channel);
      if (signal.kind === 'event') yield put(signal.action);
      else if (signal.kind === 'reconnecting') yield put(connectionChanged({ state: 'Reconnecting', error: signal.error ?? null }));
      else if (signal.kind === 'reconnected') {
        yield put(connectionChanged({ state: 'Connected' }));
        yield fork(rejoinAndRefresh, connection);
      } else {
        yield put(connectionChanged({ state: 'Disconnected', error: signal.error ?? null }));
        if (signal.error) yield put(pushToast({ status: 'error', summary: 'Websocket connection failed', detail: signal.error }));
        return;
      }
    }
  } finally {
    if (groups) yield cancel(groups);
    channel.close();
    if (yield cancelled()) {
      yield put(connectionChanged({ state: 'Disconnecting' }));
      try {
        yield call([connection, connection.stop]);
      } finally {
        yield put(connectionChanged({ state: 'Disconnected' }));
      }
    }
  }
}

/**
 * SPEC §4: while the layout is shown and the user is signed in, keep a connection; start one when
 * the login state changes while disconnected or when the person retries; stop it when the layout
 * is left or the person signs out.
 */
export function* realtimeSaga(createHub: HubFactory): SagaIterator {
  let layoutShown = false;
  let wasSignedIn = false;
  let session: Task | undefined;
  for (;;) {
    const { entered, left, retry } = yield race({
      entered: take(layoutEntered.type),
      left: take(layoutLeft.type),
      retry: take(retryRequested.type),
      // The login state lives in the auth slice, which follows these actions.
      other: take((action: { type: string }) => action.type.startsWith('auth/') || action.type.startsWith('api/')),
    });
    if (entered) layoutShown = true;
    if (left) layoutShown = false;
    const signedIn: boolean = yield select(selectIsAuthenticated);
    const loginChanged = signedIn !== wasSignedIn;
    wasSignedIn = signedIn;

    const running = session?.isRunning() ?? false;
    if (running && (!layoutShown || !signedIn)) yield cancel(session!);
    else if (!running && layoutShown && signedIn && (entered || retry || loginChanged)) {
      session = yield fork(connectionSaga, createHub);
    }
  }
}
