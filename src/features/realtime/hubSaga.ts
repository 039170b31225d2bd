import type { Action } from '@reduxjs/toolkit';
import { buffers, eventChannel, type Channel, type EventChannel, type SagaIterator, type Task } from 'redux-saga';
import { actionChannel, all, call, cancel, fork, put, race, select, spawn, take, takeEvery } from 'redux-saga/effects';
import { hubEvents } from '../../../contracts/hub';
import { baseApi } from '../../api/baseApi';
import { errorStatus } from '../../api/problemText';
import { callMutation } from '../../api/callMutation';
import type { RootState } from '../../app/rootReducer';
import { authApi } from '../auth/authApi';
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
import { selectConnection, selectJoinedGroups } from './selectors';

type LinkSignal =
  | { kind: 'event'; action: ReturnType<typeof hubEvent> }
  | { kind: 'reconnecting'; error?: string }
  | { kind: 'reconnected' }
  | { kind: 'closed'; error?: string };

const connectionFailed = 'Websocket connection failed';

/**
 * Bridges the connection's callbacks into the saga; closing the channel unregisters the event
 * handlers (SignalR cannot unregister the lifecycle callbacks; a closed channel drops what they emit).
 * Buffered, so nothing is lost while the saga is busy with the previous signal.
 */
function linkChannel(connection: HubConnectionLike): EventChannel<LinkSignal> {
  return eventChannel<LinkSignal>((emit) => {
    for (const name of hubEvents) {
      connection.on(name, (payload) => emit({ kind: 'event', action: hubEvent(name, payload, new Date().toISOString()) }));
    }
    connection.onreconnecting((error) => emit({ kind: 'reconnecting', error: error?.message }));
    connection.onreconnected(() => emit({ kind: 'reconnected' }));
    connection.onclose((error) => emit({ kind: 'closed', error: error?.message }));
    return () => {
      for (const name of hubEvents) connection.off(name);
    };
  }, buffers.expanding(16));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * What a page shows of a group that it fetched before the group was joined: events pushed in
 * between are lost, so it is read again once the join holds. An instance's operation is the one
 * that matters: a missed OperationCompleted would leave its page waiting, every action disabled.
 */
function tagsReadAfterJoin({ name, args: [id] }: GroupRef) {
  if (name === 'Instances') return [{ type: 'Instance' as const, id: 'LIST' }];
  if (name === 'Instance' && id) return [{ type: 'Instance' as const, id }];
  return [];
}

/** Answers whether the hub took it. */
function* invokeGroup(connection: HubConnectionLike, verb: 'Join' | 'Leave', group: GroupRef): SagaIterator<boolean> {
  try {
    yield call([connection, connection.invoke], `${verb}${group.name}`, ...group.args);
    return true;
  } catch (error) {
    // A link that dropped meanwhile cancels its pending calls; the groups are re-joined on reconnect.
    if ((yield select(selectConnection)) !== 'Connected') return false;
    yield put(pushToast({ status: 'error', summary: `Could not ${verb.toLowerCase()} ${group.name}`, detail: messageOf(error) }));
    return false;
  }
}

/** Joins a group, then reads again what its page fetched before the join held. */
function* joinGroup(connection: HubConnectionLike, group: GroupRef): SagaIterator {
  const joined: boolean = yield call(invokeGroup, connection, 'Join', group);
  const tags = tagsReadAfterJoin(group);
  if (joined && tags.length > 0) yield put(baseApi.util.invalidateTags(tags));
}

/**
 * A fresh link knows no groups: join every group pages hold. When the browser was without a link
 * before (a reconnect, a retry), events may have been missed, so cached data is refetched, after
 * the groups are joined: no event can fall between the answer and the join.
 */
function* joinAll(connection: HubConnectionLike, refresh: boolean): SagaIterator {
  const joined: ReturnType<typeof selectJoinedGroups> = yield select(selectJoinedGroups);
  const groups = Object.values(joined);
  if (!refresh) {
    for (const group of groups) yield fork(joinGroup, connection, group);
    return;
  }
  yield all(groups.map((group) => call(invokeGroup, connection, 'Join', group)));
  yield put(baseApi.util.invalidateTags(['Instance', 'Group', 'Backup', 'Log', 'User', 'Statistics', 'Hosts']));
}

/**
 * After a reconnect the session may have ended meanwhile (expired, logged out elsewhere): ask the
 * cheap probe first. Its 401 signs the person out through the one error path, and the groups are
 * not re-joined; any other answer leaves the session as it was.
 */
type SessionProbe = ReturnType<ReturnType<typeof authApi.endpoints.checkSession.initiate>>;

function* sessionHolds(): SagaIterator<boolean> {
  const probe: SessionProbe = yield put(authApi.endpoints.checkSession.initiate(undefined, { subscribe: false, forceRefetch: true }));
  const { error }: Awaited<SessionProbe> = yield call(() => probe);
  return errorStatus(error) !== 401;
}

/** Pages join and leave through the store; the hub hears only the first join and the last leave. */
function* groupRequests(connection: HubConnectionLike): SagaIterator {
  yield takeEvery([groupJoined.type, groupLeft.type], function* (
    action: ReturnType<typeof groupJoined> | ReturnType<typeof groupLeft>,
  ): SagaIterator {
    const state: RootState = yield select();
    if (state.realtime.connection !== 'Connected') return; // joined on (re)connect
    const stillJoined = state.realtime.joined[groupKey(action.payload)];
    if (groupJoined.match(action) && stillJoined?.count === 1) yield fork(joinGroup, connection, action.payload);
    if (groupLeft.match(action) && !stillJoined) yield fork(invokeGroup, connection, 'Leave', action.payload);
  });
}

const serverClosePrefix = 'Server returned an error on close: ';

/**
 * The server closes the links of a session it ended (account disabled, password reset) with the
 * reason. Whether the session still holds decides what the person reads: when it does not, the
 * 401 takes them to sign in and the server's reason says why; otherwise the link failed.
 */
function* reportServerClose(error: string): SagaIterator {
  yield call(callMutation, authApi.endpoints.me.initiate(undefined, { forceRefetch: true, subscribe: false }));
  if (yield select(selectIsAuthenticated)) {
    yield put(pushToast({ status: 'error', summary: connectionFailed, detail: error }));
    return;
  }
  const reason = error.startsWith(serverClosePrefix) ? error.slice(serverClosePrefix.length) : error;
  yield put(pushToast({ status: 'warning', summary: reason }));
}

/** What realtimeSaga remembers across connections. */
export interface LinkHistory {
  /** Whether any connection of this store has been up: a later one may have missed events. */
  connected: boolean;
}

/**
 * One connection's life: connect, join, relay events, follow the client's automatic reconnects.
 * Returns when the start fails or the connection closes for good (the client gave up, or the
 * server closed it). Stopping is not its business: realtimeSaga cancels it and stops the connection.
 */
export function* connectionSaga(
  connection: HubConnectionLike,
  history: LinkHistory,
  probeSession: () => SagaIterator<boolean> = sessionHolds,
): SagaIterator {
  const link: EventChannel<LinkSignal> = yield call(linkChannel, connection);
  let groups: Task | undefined;
  try {
    yield put(connectionChanged({ state: 'Connecting' }));
    try {
      yield call([connection, connection.start]);
    } catch (error) {
      yield put(connectionChanged({ state: 'Disconnected', error: messageOf(error) }));
      yield put(pushToast({ status: 'error', summary: connectionFailed, detail: messageOf(error) }));
      return;
    }
    yield put(connectionChanged({ state: 'Connected' }));
    groups = yield fork(groupRequests, connection);
    yield fork(joinAll, connection, history.connected);
    history.connected = true;

    // While the client reconnects: what dropped the link.
    let droppedBy: string | null = null;
    for (;;) {
      const signal: LinkSignal = yield take(link);
      if (signal.kind === 'event') {
        yield put(signal.action);
      } else if (signal.kind === 'reconnecting') {
        droppedBy = signal.error ?? 'The connection was lost.';
        yield put(connectionChanged({ state: 'Reconnecting', error: signal.error ?? null }));
      } else if (signal.kind === 'reconnected') {
        droppedBy = null;
        yield put(connectionChanged({ state: 'Connected' }));
        if (yield call(probeSession)) yield fork(joinAll, connection, true);
      } else {
        // The client closes without an error when it gives up reconnecting: that is a failure
        // too, and what dropped the link says why. A close without an error straight from
        // Connected is the server ending the link on purpose.
        const error = signal.error ?? droppedBy;
        yield put(connectionChanged({ state: 'Disconnected', error }));
        // Spawned: a session that ended clears the user, which cancels this saga.
        if (signal.error) yield spawn(reportServerClose, signal.error);
        else if (error) yield put(pushToast({ status: 'error', summary: connectionFailed, detail: error }));
        return;
      }
    }
  } finally {
    if (groups) yield cancel(groups);
    link.close();
  }
}

/** Stops a connection the person no longer wants; done before any new one starts. */
function* stopConnection(connection: HubConnectionLike): SagaIterator {
  yield put(connectionChanged({ state: 'Disconnecting' }));
  try {
    yield call([connection, connection.stop]);
  } catch {
    // Stopping cannot fail in a way that matters: the link is gone either way.
  }
  yield put(connectionChanged({ state: 'Disconnected', error: null }));
}

/** What the person's situation asks of the connection. */
interface Wish {
  layoutShown: boolean;
  signedIn: boolean;
  /** Between asking to log out and the answer: the server is about to close the link. */
  loggingOut: boolean;
}

const wanted = (wish: Wish) => wish.layoutShown && wish.signedIn && !wish.loggingOut;

/** The actions that can change the wish: layout, retry, and everything the auth slice follows. */
const isLifecycleAction = (action: Action) =>
  layoutEntered.match(action) ||
  layoutLeft.match(action) ||
  retryRequested.match(action) ||
  action.type.startsWith('auth/') ||
  action.type.startsWith(`${baseApi.reducerPath}/`);

/** Updates the wish from one action; answers whether the action asks for a connection (when idle). */
function* follow(wish: Wish, action: Action): SagaIterator<boolean> {
  if (layoutEntered.match(action)) wish.layoutShown = true;
  if (layoutLeft.match(action)) wish.layoutShown = false;
  const logout = authApi.endpoints.logout;
  const logoutFailed = logout.matchRejected(action);
  if (logout.matchPending(action)) wish.loggingOut = true;
  if (logoutFailed || logout.matchFulfilled(action)) wish.loggingOut = false;
  const signedIn: boolean = yield select(selectIsAuthenticated);
  const loginChanged = signedIn !== wish.signedIn;
  wish.signedIn = signedIn;
  return layoutEntered.match(action) || retryRequested.match(action) || loginChanged || logoutFailed;
}

function* untilUnwanted(lifecycle: Channel<Action>, wish: Wish): SagaIterator<true> {
  while (wanted(wish)) {
    const action: Action = yield take(lifecycle);
    yield call(follow, wish, action);
  }
  return true;
}

/**
 * SPEC §4: while the layout is shown and the user is signed in, keep a connection; start one when
 * the layout is entered, the login state changes while disconnected or the person retries; stop it
 * when the layout is left or the person signs out. One connection at a time: a new one starts only
 * after the last one has stopped, so a late "Disconnected" never overwrites the new link's state.
 */
export function* realtimeSaga(createHub: HubFactory): SagaIterator {
  // Buffered: what happens while a connection is being stopped is acted on right after.
  const lifecycle: Channel<Action> = yield actionChannel(isLifecycleAction, buffers.expanding(16));
  const wish: Wish = { layoutShown: false, signedIn: false, loggingOut: false };
  const history: LinkHistory = { connected: false };
  for (;;) {
    const action: Action = yield take(lifecycle);
    const asked: boolean = yield call(follow, wish, action);
    if (!asked || !wanted(wish)) continue;

    const connection = createHub();
    const { unwanted } = yield race({
      ended: call(connectionSaga, connection, history),
      unwanted: call(untilUnwanted, lifecycle, wish),
    });
    // Signing out stops the link before the server closes it, so that close is no failure.
    if (unwanted) yield call(stopConnection, connection);
  }
}
