import type { UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware, { type SagaIterator } from 'redux-saga';
import { call } from 'redux-saga/effects';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import { connectionSaga } from '../../../../src/features/realtime/hubSaga';
import type { RealtimeState } from '../../../../src/features/realtime/realtimeSlice';
import { FakeHub } from './fakeHub';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Whether the session survived a drop, as the probe after a reconnect finds it. */
const sessionProbe = (holds: boolean) =>
  function* probe(): SagaIterator<boolean> {
    return (yield call(() => holds)) as boolean;
  };

/** One connection's saga on a mock store whose state says the page holds the Instances group. */
function recordConnection(history = { connected: false }, probe = sessionProbe(true)) {
  const realtime: RealtimeState = {
    connection: 'Connected',
    error: null,
    joined: { 'Instances()': { name: 'Instances', args: [], count: 1 } },
    recent: [],
  };
  const sagaMiddleware = createSagaMiddleware();
  const store = configureMockStore<{ realtime: RealtimeState }>([sagaMiddleware])({ realtime });
  const hub = new FakeHub();
  const task = sagaMiddleware.run(connectionSaga, hub, history, probe);
  const actions = () => store.getActions() as UnknownAction[];
  /** Each action as its type, with the connection state or toast summary where it has one. */
  const described = () =>
    actions().map(({ type, payload }) => {
      const p = payload as { state?: string; error?: string | null; summary?: string } | undefined;
      if (type === 'realtime/connectionChanged') return `${type} ${p?.state}${p?.error ? ` (${p.error})` : ''}`;
      if (type === 'ui/pushToast') return `${type} ${p?.summary}`;
      return type;
    });
  return { hub, task, actions, described };
}

describe('connectionSaga: the actions of one connection’s life', () => {
  it('connects, joins, relays events, reconnects with a refresh, and reports giving up', async () => {
    const { hub, task, described } = recordConnection();
    await settle();
    hub.push('DebugMessage', { text: 'hi', from: 'ada', sentAt: 'x' });
    hub.reconnecting(new Error('lost'));
    hub.reconnected();
    await settle();
    hub.reconnecting(new Error('lost again'));
    hub.close();
    await task.toPromise();

    expect(described()).toEqual([
      'realtime/connectionChanged Connecting',
      'realtime/connectionChanged Connected',
      // The list the page fetched before the join held is read again.
      'api/invalidateTags',
      'realtime/event/DebugMessage',
      'realtime/connectionChanged Reconnecting (lost)',
      'realtime/connectionChanged Connected',
      'api/invalidateTags',
      'realtime/connectionChanged Reconnecting (lost again)',
      'realtime/connectionChanged Disconnected (lost again)',
      'ui/pushToast Websocket connection failed',
    ]);
    expect(hub.invoked()).toEqual(['JoinInstances()', 'JoinInstances()']);
  });

  it('neither re-joins nor refreshes after a reconnect when the session ended meanwhile', async () => {
    const { hub, described } = recordConnection(undefined, sessionProbe(false));
    await settle();
    hub.reconnecting(new Error('lost'));
    hub.reconnected();
    await settle();
    expect(described()).toEqual([
      'realtime/connectionChanged Connecting',
      'realtime/connectionChanged Connected',
      'api/invalidateTags',
      'realtime/connectionChanged Reconnecting (lost)',
      'realtime/connectionChanged Connected',
    ]);
    expect(hub.invoked()).toEqual(['JoinInstances()']);
  });

  it('refreshes cached data on connect when an earlier connection had been up', async () => {
    const { hub, described } = recordConnection({ connected: true });
    await settle();
    expect(described()).toEqual([
      'realtime/connectionChanged Connecting',
      'realtime/connectionChanged Connected',
      'api/invalidateTags',
    ]);
    expect(hub.invoked()).toEqual(['JoinInstances()']);
  });

  it('ends quietly when the server closes the link without an error', async () => {
    const { hub, task, described } = recordConnection();
    await settle();
    hub.close();
    await task.toPromise();
    expect(described()).toEqual([
      'realtime/connectionChanged Connecting',
      'realtime/connectionChanged Connected',
      'api/invalidateTags',
      'realtime/connectionChanged Disconnected',
    ]);
  });

  it('unregisters its event handlers when it ends', async () => {
    const { hub, task, actions } = recordConnection();
    await settle();
    hub.close();
    await task.toPromise();
    const count = actions().length;
    hub.push('DebugMessage', { text: 'late' });
    expect(actions()).toHaveLength(count);
  });
});
