import { waitFor } from '@testing-library/react';
import { setupStore } from '../../../../src/app/store';
import { clearLogsRequested } from '../../../../src/features/logs/logsSaga';
import { liveToggled, tailHeld, tailOpened, tailReleased } from '../../../../src/features/logs/logsSlice';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { closeModal } from '../../../../src/features/ui/uiSlice';
import { aLogEntry } from '../../handlers/instancesHandlers';
import { logsServer } from '../../handlers/logsHandlers';
import { setupMsw } from '../../msw';

const server = setupMsw();

function store() {
  return setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
}
const arrive = (s: ReturnType<typeof store>, ...entries: ReturnType<typeof aLogEntry>[]) =>
  s.dispatch(hubEvent('LogsAppended', { instanceId: 'i-1', entries, skipped: 0 }, 't'));
const shown = (s: ReturnType<typeof store>) => s.getState().logsTail.shown.map((e) => e.id);
const held = (s: ReturnType<typeof store>) => s.getState().logsTail.held.map((e) => e.id);

describe('logsSaga: the live tail', () => {
  it('ignores entries while no log view is open', () => {
    const s = store();
    arrive(s, aLogEntry({ id: 1 }));
    expect(shown(s)).toEqual([]);
  });

  it('shows matching entries newest first and drops the rest', () => {
    const s = store();
    s.dispatch(tailOpened({ level: 'error,fatal', instanceId: 'i-1' }));
    arrive(s, aLogEntry({ id: 1, level: 'error' }), aLogEntry({ id: 2, level: 'information' }), aLogEntry({ id: 3, level: 'fatal' }), aLogEntry({ id: 4, level: 'error', instanceId: 'i-9' }));
    expect(shown(s)).toEqual([3, 1]);
  });

  it('matches a search on every word of message or properties', () => {
    const s = store();
    s.dispatch(tailOpened({ search: 'wal 42P01' }));
    arrive(s, aLogEntry({ id: 1, message: 'WAL segment missing', properties: { sqlstate: '42P01' } }), aLogEntry({ id: 2, message: 'wal only' }));
    expect(shown(s)).toEqual([1]);
  });

  it('holds entries while paused for any reason and releases them when the last reason ends', () => {
    const s = store();
    s.dispatch(tailOpened({}));
    arrive(s, aLogEntry({ id: 1 }));
    s.dispatch(tailHeld('hover'));
    s.dispatch(tailHeld('selection'));
    arrive(s, aLogEntry({ id: 2 }), aLogEntry({ id: 3 }));
    expect(shown(s)).toEqual([1]);
    expect(held(s)).toEqual([3, 2]);
    s.dispatch(tailReleased('hover'));
    expect(held(s)).toEqual([3, 2]);
    s.dispatch(tailReleased('selection'));
    expect(shown(s)).toEqual([3, 2, 1]);
    expect(held(s)).toEqual([]);
  });

  it('takes nothing while live tail is off', () => {
    const s = store();
    s.dispatch(tailOpened({}));
    s.dispatch(liveToggled(false));
    arrive(s, aLogEntry({ id: 1 }));
    expect(shown(s)).toEqual([]);
    s.dispatch(liveToggled(true));
    arrive(s, aLogEntry({ id: 2 }));
    expect(shown(s)).toEqual([2]);
  });
});

describe('logsSaga: clearing', () => {
  it('asks first, saying what goes, and clears only after a yes', async () => {
    const fake = logsServer([aLogEntry({ id: 1, instanceId: 'i-1' }), aLogEntry({ id: 2, instanceId: 'i-2' })]);
    server.use(...fake.handlers);
    const s = store();
    s.dispatch(clearLogsRequested({ args: { instanceId: 'i-1', before: '2030-01-01T00:00:00.000Z' }, description: 'This removes every entry of instance orders.' }));
    expect(s.getState().ui.modal).toMatchObject({ title: 'Clear log entries?', description: 'This removes every entry of instance orders. This cannot be undone.' });
    s.dispatch(closeModal(false));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.state.cleared).toHaveLength(0);

    s.dispatch(clearLogsRequested({ args: { instanceId: 'i-1', before: '2030-01-01T00:00:00.000Z' }, description: 'x' }));
    s.dispatch(closeModal(true));
    await waitFor(() => expect(fake.state.cleared).toHaveLength(1));
    expect(Object.fromEntries(fake.state.cleared[0])).toEqual({ instanceId: 'i-1', before: '2030-01-01T00:00:00.000Z' });
    await waitFor(() => expect(s.getState().ui.toasts.at(-1)).toMatchObject({ summary: 'Log entries cleared', detail: '1 entry removed.' }));
  });
});

describe('logsSaga: duplicates', () => {
  it('shows an entry heard twice (instance and whole-scope groups) once', () => {
    const s = store();
    s.dispatch(tailOpened({}));
    arrive(s, aLogEntry({ id: 1 }), aLogEntry({ id: 2 }));
    arrive(s, aLogEntry({ id: 2 }), aLogEntry({ id: 3 }));
    expect(shown(s)).toEqual([3, 2, 1]);
  });
});
