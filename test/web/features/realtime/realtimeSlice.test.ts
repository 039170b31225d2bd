import {
  connectionChanged,
  groupJoined,
  groupLeft,
  hubEvent,
  realtimeSlice,
  recentEventsKept,
  type RealtimeState,
} from '../../../../src/features/realtime/realtimeSlice';
import { reduceFrozen } from '../../reducerTester';

const reducer = realtimeSlice.reducer;
const initial: RealtimeState = { connection: 'Disconnected', error: null, joined: {}, recent: [] };

describe('realtimeSlice', () => {
  it('starts disconnected, with no groups and no events', () => {
    expect(reducer(undefined, { type: '@@init' })).toEqual(initial);
  });

  it('follows the connection states and keeps the last error until connected again', () => {
    const failed = reduceFrozen(
      reducer,
      initial,
      connectionChanged({ state: 'Connecting' }),
      connectionChanged({ state: 'Disconnected', error: 'refused' }),
    );
    expect(failed).toMatchObject({ connection: 'Disconnected', error: 'refused' });
    expect(reduceFrozen(reducer, failed, connectionChanged({ state: 'Connecting' }))).toMatchObject({
      connection: 'Connecting',
      error: 'refused',
    });

    const reconnecting = reduceFrozen(reducer, failed, connectionChanged({ state: 'Reconnecting', error: 'lost' }));
    expect(reconnecting).toMatchObject({ connection: 'Reconnecting', error: 'lost' });
    expect(reduceFrozen(reducer, reconnecting, connectionChanged({ state: 'Connected' }))).toMatchObject({
      connection: 'Connected',
      error: null,
    });
    expect(reduceFrozen(reducer, failed, connectionChanged({ state: 'Disconnected', error: null })).error).toBeNull();
  });

  it('counts the pages holding each group, by name and arguments', () => {
    const state = reduceFrozen(
      reducer,
      initial,
      groupJoined({ name: 'Instance', args: ['i-1'] }),
      groupJoined({ name: 'Instance', args: ['i-1'] }),
      groupJoined({ name: 'Instance', args: ['i-2'] }),
      groupJoined({ name: 'Logs', args: [null] }),
    );
    expect(state.joined).toEqual({
      'Instance(i-1)': { name: 'Instance', args: ['i-1'], count: 2 },
      'Instance(i-2)': { name: 'Instance', args: ['i-2'], count: 1 },
      'Logs()': { name: 'Logs', args: [null], count: 1 },
    });
  });

  it('treats a missing argument and null as the same group, as the server does', () => {
    const state = reduceFrozen(reducer, initial, groupJoined({ name: 'Logs', args: [null] }), groupJoined({ name: 'Logs', args: [] }));
    expect(state.joined['Logs()'].count).toBe(2);
  });

  it('forgets a group when its last page leaves, and ignores a leave of a group never joined', () => {
    const one = reduceFrozen(reducer, initial, groupJoined({ name: 'Users', args: [] }), groupJoined({ name: 'Users', args: [] }));
    const still = reduceFrozen(reducer, one, groupLeft({ name: 'Users', args: [] }));
    expect(still.joined['Users()'].count).toBe(1);
    expect(reduceFrozen(reducer, still, groupLeft({ name: 'Users', args: [] })).joined).toEqual({});
    expect(reduceFrozen(reducer, initial, groupLeft({ name: 'Groups', args: [] }))).toEqual(initial);
  });

  it('keeps pushed events newest first, with the time they arrived', () => {
    const state = reduceFrozen(
      reducer,
      initial,
      hubEvent('InstanceCreated', { id: 'i-1' }, '2025-03-01T10:00:00.000Z'),
      hubEvent('DebugMessage', { text: 'hi', from: 'ada', sentAt: 'x' }, '2025-03-01T10:00:01.000Z'),
    );
    expect(state.recent).toEqual([
      { name: 'DebugMessage', payload: { text: 'hi', from: 'ada', sentAt: 'x' }, at: '2025-03-01T10:00:01.000Z' },
      { name: 'InstanceCreated', payload: { id: 'i-1' }, at: '2025-03-01T10:00:00.000Z' },
    ]);
  });

  it(`keeps at most ${recentEventsKept} events`, () => {
    const events = Array.from({ length: recentEventsKept + 1 }, (_, i) => hubEvent('LogsAppended', { n: i }, `t${i}`));
    const state = reduceFrozen(reducer, initial, ...events);
    expect(state.recent).toHaveLength(recentEventsKept);
    expect(state.recent[0].payload).toEqual({ n: recentEventsKept });
    expect(state.recent[recentEventsKept - 1].payload).toEqual({ n: 1 });
  });

  it('names event actions realtime/event/<Name>', () => {
    expect(hubEvent('DebugMessage', { text: 't' }, 'now')).toEqual({
      type: 'realtime/event/DebugMessage',
      payload: { text: 't' },
      meta: { receivedAt: 'now' },
    });
  });
});
