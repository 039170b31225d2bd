import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CurrentUser } from '../../../../contracts/auth';
import type { LogEntry } from '../../../../contracts/logs';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin, regular } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aLogEntry, allGroupsHandler, anInstance, instancesListHandler } from '../../handlers/instancesHandlers';
import { logsServer } from '../../handlers/logsHandlers';
import { pageOf } from '../../handlers/pages';
import { setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { pickOption } from '../../pickOption';

const server = setupMsw();
beforeAll(() => import('../../../../src/features/logs/LogsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

// jsdom lays nothing out: give the virtualized list a viewport so it renders rows.
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 });
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 });
});

const now = Date.now();
const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
const orders = anInstance({ id: 'i-1', name: 'orders' });
const billing = anInstance({ id: 'i-2', name: 'billing' });
const log: LogEntry[] = [
  aLogEntry({ id: 4, timestamp: ago(1), level: 'error', instanceId: 'i-2', message: 'billing down', properties: { backupId: 'b-1' } }),
  aLogEntry({ id: 3, timestamp: ago(2), level: 'warning', instanceId: 'i-1', message: 'checkpoints too frequent' }),
  aLogEntry({ id: 2, timestamp: ago(3), level: 'information', instanceId: null, handler: 'warden', message: 'server started' }),
  aLogEntry({ id: 1, timestamp: ago(4), level: 'information', instanceId: 'i-1', message: 'ready to accept connections' }),
];

function openLogs(who: CurrentUser, path = '/logs', entries = log) {
  const fake = logsServer(entries);
  server.use(meHandler(who), ...fake.handlers, instancesListHandler(() => pageOf([orders, billing])).handler);
  const user = userEvent.setup();
  return { ...renderApp(path), fake, user };
}

const table = () => within(screen.getByRole('table', { name: 'Log entries' }));
const messages = () =>
  table()
    .queryAllByRole('row')
    .filter((row) => row.dataset.level)
    .map((row) => row.lastElementChild?.textContent);

describe('LogsPage', () => {
  it('shows every entry newest first with level, instance link and handler', async () => {
    openLogs(admin);
    expect(await screen.findByRole('heading', { level: 1, name: 'Logs' }, firstRender)).toBeInTheDocument();
    await waitFor(() => expect(messages()).toEqual(['billing down', 'checkpoints too frequent', 'server started', 'ready to accept connections']));
    expect(table().getAllByRole('link', { name: 'billing' })[0]).toHaveAttribute('href', '/instances/i-2');
    expect(table().getByText('control plane')).toBeInTheDocument();
    expect(await screen.findByText(/4 matching entries/)).toBeInTheDocument();
    expect(screen.getByText(/Log store: 4 entries/)).toBeInTheDocument();
  });

  it('keeps the filters in the URL and asks the server with them', async () => {
    const { user, fake, location } = openLogs(admin);
    await waitFor(() => expect(messages()).toHaveLength(4), firstRender);

    await user.click(screen.getByRole('checkbox', { name: 'Error' }));
    await waitFor(() => expect(location()).toContain('level=error'));
    await waitFor(() => expect(messages()).toEqual(['billing down']));
    expect(fake.queries.last()).toMatchObject({ level: 'error', pageSize: '200' });

    await pickOption(user, screen.getByRole('combobox', { name: 'Instance' }), 'orders');
    await waitFor(() => expect(location()).toContain('instanceId=i-1'));
    await waitFor(() => expect(screen.getByText('No entries match these filters.')).toBeInTheDocument());

    await pickOption(user, screen.getByRole('combobox', { name: 'Time range' }), 'Last hour');
    await waitFor(() => expect(location()).toContain('range=1h'));
    // The quick range reaches back one hour from when it was chosen.
    await waitFor(() => expect(Date.parse(fake.queries.last().from!)).toBeGreaterThan(now - 3_700_000));
    expect(fake.queries.last()).toMatchObject({ level: 'error', instanceId: 'i-1' });
  });

  it('reads its filters from the URL it was opened at', async () => {
    const { fake } = openLogs(regular, '/logs?level=warning,error&instanceId=i-1&search=checkpoints');
    await waitFor(() => expect(messages()).toEqual(['checkpoints too frequent']), firstRender);
    expect(fake.queries.last()).toMatchObject({ level: 'warning,error', instanceId: 'i-1', search: 'checkpoints' });
    expect(screen.getByRole('checkbox', { name: 'Warning' })).toBeChecked();
    expect(screen.getByRole('searchbox', { name: 'Search logs' })).toHaveValue('checkpoints');
    // A member may clear the entries of an instance they filtered to.
    expect(screen.getByRole('button', { name: 'Clear…' })).toBeInTheDocument();
  });

  it('offers no clearing to a member without an instance filter, and the control plane only to admins', async () => {
    openLogs(regular);
    await waitFor(() => expect(messages()).toHaveLength(4), firstRender);
    expect(screen.queryByRole('button', { name: 'Clear…' })).not.toBeInTheDocument();
    expect(within(screen.getByRole('combobox', { name: 'Instance' })).queryByRole('option', { name: 'Control plane' })).not.toBeInTheDocument();
  });

  it('exports the current filter', async () => {
    openLogs(admin, '/logs?level=error&range=custom&from=2030-01-01T00:00:00.000Z');
    await screen.findByRole('heading', { level: 1, name: 'Logs' }, firstRender);
    const link = await screen.findByRole('link', { name: 'Export CSV' });
    const href = new URL(link.getAttribute('href')!, 'http://x');
    expect(href.pathname).toBe('/logs/export');
    expect(Object.fromEntries(href.searchParams)).toEqual({ level: 'error', from: '2030-01-01T00:00:00.000Z', format: 'csv' });
  });

  it('appends live entries at the top, and holds them while the pointer is over the rows', async () => {
    const { store } = openLogs(admin);
    await waitFor(() => expect(messages()).toHaveLength(4), firstRender);
    const live = (id: number, message: string) =>
      act(() => {
        store.dispatch(hubEvent('LogsAppended', { instanceId: 'i-1', entries: [aLogEntry({ id, timestamp: new Date().toISOString(), instanceId: 'i-1', message })], skipped: 0 }, 't'));
      });

    live(10, 'live one');
    await waitFor(() => expect(messages()[0]).toBe('live one'));

    const body = table().getAllByRole('rowgroup')[1];
    fireEvent.mouseEnter(body);
    live(11, 'live two');
    expect(await screen.findByRole('button', { name: '1 new entry' })).toBeInTheDocument();
    expect(messages()[0]).toBe('live one');
    expect(screen.getByText('Live tail (paused)')).toBeInTheDocument();

    fireEvent.mouseLeave(body);
    await waitFor(() => expect(messages().slice(0, 2)).toEqual(['live two', 'live one']));
    expect(screen.queryByRole('button', { name: /new entr/ })).not.toBeInTheDocument();
  });

  it('ignores live entries outside the filters and when the tail is off', async () => {
    const { store, user } = openLogs(admin, '/logs?level=error');
    await waitFor(() => expect(messages()).toEqual(['billing down']), firstRender);
    const push = (entry: LogEntry) =>
      act(() => {
        store.dispatch(hubEvent('LogsAppended', { instanceId: entry.instanceId, entries: [entry], skipped: 0 }, 't'));
      });
    push(aLogEntry({ id: 20, timestamp: new Date().toISOString(), level: 'information', message: 'not an error' }));
    await user.click(screen.getByRole('checkbox', { name: 'Live tail' }));
    push(aLogEntry({ id: 21, timestamp: new Date().toISOString(), level: 'error', message: 'while off' }));
    expect(messages()).toEqual(['billing down']);
  });

  it('opens an entry with its properties and a link to its backup', async () => {
    const { user } = openLogs(admin);
    await waitFor(() => expect(messages()).toHaveLength(4), firstRender);
    const row = table().getAllByRole('row').find((r) => r.textContent?.includes('billing down'))!;
    row.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', {}, firstRender);
    expect(within(dialog).getByText('Log entry 4')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Properties')).toHaveTextContent('"backupId": "b-1"');
    expect(within(dialog).getByRole('link', { name: 'Open the backups of this instance' })).toHaveAttribute('href', '/instances/i-2/backups/database');
    expect(within(dialog).getByRole('button', { name: 'Copy properties' })).toBeInTheDocument();
  });

  it('shows on coming back what was written and pushed while the person was on another screen, in a fixed window too', async () => {
    const window = '/logs?range=custom&from=2020-01-01T00:00:00.000Z';
    const { fake, router, store } = openLogs(admin, window);
    server.use(allGroupsHandler([]));
    await waitFor(() => expect(messages()).toHaveLength(4), firstRender);
    await act(() => router.navigate('/instances'));
    await screen.findByRole('heading', { level: 1, name: 'Instances' }, firstRender);
    // Stored by the server, and pushed while no log view was open to take it.
    const meanwhile = aLogEntry({ id: 30, timestamp: new Date().toISOString(), level: 'error', instanceId: 'i-1', message: 'written meanwhile' });
    fake.state.entries = [meanwhile, ...log];
    act(() => {
      store.dispatch(hubEvent('LogsAppended', { instanceId: 'i-1', entries: [meanwhile], skipped: 0 }, 't'));
    });
    await act(() => router.navigate(window));
    await waitFor(() => expect(messages()).toEqual(['written meanwhile', 'billing down', 'checkpoints too frequent', 'server started', 'ready to accept connections']));
    expect(screen.getByText(/5 matching entries/)).toBeInTheDocument();
  });

  it('counts what arrived live among the matching entries, so the footer adds up to the rows', async () => {
    const { store } = openLogs(admin, '/logs', []);
    expect(await screen.findByText('No entries match these filters.', {}, firstRender)).toBeInTheDocument();
    expect(screen.getByText('0 matching entries')).toBeInTheDocument();
    act(() => {
      const entries = Array.from({ length: 8 }, (_, i) =>
        aLogEntry({ id: 40 + i, timestamp: new Date().toISOString(), instanceId: 'i-1', message: `live ${i}` }),
      );
      store.dispatch(hubEvent('LogsAppended', { instanceId: 'i-1', entries, skipped: 0 }, 't'));
    });
    await waitFor(() => expect(messages()).toHaveLength(8));
    expect(screen.getByText('8 matching entries, 8 of them arrived live')).toBeInTheDocument();
  });

  it('says when no entry matches', async () => {
    openLogs(admin, '/logs', []);
    expect(await screen.findByText('No entries match these filters.', {}, firstRender)).toBeInTheDocument();
  });
});
