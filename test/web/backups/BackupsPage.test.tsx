import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AllBackupsPage } from '../../../contracts/backups';
import { formatDateTime } from '../../../src/components/DateTime';
import { hubEvent } from '../../../src/features/realtime/realtimeSlice';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { aBackup, allBackupsHandler, allBackupsPageOf } from '../handlers/backupsHandlers';
import { setupMsw } from '../msw';
import { renderApp } from '../renderApp';
import { pickOption } from '../pickOption';

const server = setupMsw();
beforeAll(() => import('../../../src/features/backups/BackupsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

const orders = aBackup({ id: 'b-1', startedAt: '2025-02-03T03:00:00.000Z', sizeBytes: 2_500_000, durationMs: 61_000 });
const audit = aBackup({
  id: 'b-2',
  instanceId: 'i-2',
  instanceName: 'audit',
  instanceExists: false,
  kind: 'file',
  trigger: 'pre-update',
  status: 'failed',
  error: 'tar: disk full',
  startedAt: '2025-02-02T03:00:00.000Z',
  sizeBytes: null,
  sha256: null,
  durationMs: 4000,
});

function openBackups(path = '/backups', answer: (query: URLSearchParams) => AllBackupsPage = () => allBackupsPageOf([orders, audit])) {
  const list = allBackupsHandler(answer);
  server.use(meHandler(admin), list.handler);
  const user = userEvent.setup();
  return { ...renderApp(path), list, user };
}

const table = async () => within(await screen.findByRole('table', { name: 'Backups' }, firstRender));
const rowOf = async (instanceName: string) => within((await table()).getByText(instanceName, { exact: false }).closest('tr') as HTMLElement);

describe('BackupsPage', () => {
  it('offers each row its actions: download, verify, delete, and open the instance while it exists', async () => {
    openBackups();
    const actions = (await rowOf('orders')).getByRole('group', { name: `Actions for the backup of ${formatDateTime(orders.startedAt)}` });
    for (const name of ['Download', 'Verify', 'Delete']) expect(within(actions).getByRole('button', { name })).toBeEnabled();
    expect(within(actions).getByRole('link', { name: 'Open instance' })).toHaveAttribute('href', '/instances/i-1');
    // The instance of the other backup was deleted: nothing to open, nothing stored to download.
    const gone = (await rowOf('audit')).getByRole('group', { name: /^Actions for the backup of/ });
    expect(within(gone).queryByRole('link', { name: 'Open instance' })).not.toBeInTheDocument();
    expect(within(gone).getByRole('button', { name: 'Download' })).toBeDisabled();
  });


  it('lists every backup with its instance, and the totals of everything the filters match', async () => {
    const { store } = openBackups('/backups', () => allBackupsPageOf([orders, audit], { total: 57, totalBytes: 12_400_000_000, failures: 3 }));
    const rows = (await table()).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 8).map((cell) => cell.textContent))).toEqual([
      ['orders', 'Database', 'Succeeded', formatDateTime(orders.startedAt), '1 min 1 s', '2.5 MB', 'Manual', 'e3b0c44298fc…Copy'],
      ['audit (deleted)', 'Files', 'Failed', formatDateTime(audit.startedAt), '4 s', '—', 'Before an update', '—'],
    ]);
    expect((await table()).getByRole('link', { name: 'orders' })).toHaveAttribute('href', '/instances/i-1');
    // The backups of a deleted instance are kept, but there is no instance to go to.
    expect((await table()).queryByRole('link', { name: /audit/ })).not.toBeInTheDocument();
    expect((await rowOf('audit')).getByText('Failed')).toHaveAttribute('title', 'tar: disk full');

    expect(screen.getByText(/57 backups · 12 GB stored ·/)).toHaveTextContent('57 backups · 12 GB stored · 3 failures');
    // Every backup the person may see: the group joined with null.
    expect(Object.keys(store.getState().realtime.joined)).toContain('Backups()');
  });

  it('filters, searches and puts failures first on the server, with every choice in the URL', async () => {
    const { list, user, location } = openBackups();
    await table();
    expect(list.last()).toEqual({ page: '1', pageSize: '25' });

    await pickOption(user, screen.getByRole('combobox', { name: 'Status' }), 'Failed');
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25', status: 'failed' }));
    await pickOption(user, screen.getByRole('combobox', { name: 'Kind' }), 'Files');
    await waitFor(() => expect(list.last()).toMatchObject({ kind: 'file' }));
    await pickOption(user, screen.getByRole('combobox', { name: 'Trigger' }), 'Before an update');
    await waitFor(() => expect(list.last()).toMatchObject({ trigger: 'pre-update' }));
    fireEvent.change(screen.getByLabelText('Started from'), { target: { value: '2025-02-01' } });
    await waitFor(() => expect(list.last()).toMatchObject({ from: new Date('2025-02-01T00:00:00').toISOString() }));
    await user.type(screen.getByRole('searchbox', { name: 'Search by instance name' }), 'aud');
    await waitFor(() => expect(list.last()).toMatchObject({ search: 'aud' }));

    const failuresFirst = screen.getByRole('checkbox', { name: 'Failures first' });
    expect(failuresFirst).not.toBeChecked();
    await user.click(failuresFirst);
    await waitFor(() =>
      expect(list.last()).toEqual({
        page: '1',
        pageSize: '25',
        status: 'failed',
        kind: 'file',
        trigger: 'pre-update',
        from: new Date('2025-02-01T00:00:00').toISOString(),
        search: 'aud',
        failuresFirst: 'true',
      }),
    );
    expect(location()).toBe('/backups?status=failed&kind=file&trigger=pre-update&from=2025-02-01&search=aud&failuresFirst=true');
    expect(screen.getByRole('checkbox', { name: 'Failures first' })).toBeChecked();
  });

  it('reads failures-first back from the URL, and lets it go', async () => {
    const { list, user, location } = openBackups('/backups?failuresFirst=true');
    await table();
    expect(list.last()).toEqual({ page: '1', pageSize: '25', failuresFirst: 'true' });
    await user.click(screen.getByRole('checkbox', { name: 'Failures first' }));
    await waitFor(() => expect(list.last()).toEqual({ page: '1', pageSize: '25' }));
    expect(location()).toBe('/backups');
  });

  it('sorts by instance name on the server', async () => {
    const { list, user } = openBackups();
    await user.click((await table()).getByRole('button', { name: 'Instance' }));
    await waitFor(() => expect(list.last().sort).toBe('instanceName'));
  });

  it('says when nothing matches, with zero totals', async () => {
    openBackups('/backups?status=corrupt', () => allBackupsPageOf([]));
    expect(await screen.findByText('No backups match.', {}, firstRender)).toBeInTheDocument();
    expect(screen.getByText(/stored/)).toHaveTextContent('0 backups · 0 B stored · 0 failures');
  });

  it('follows the hub: a changed backup at once, then the totals from the server; a deleted one goes', async () => {
    // The server's side of the events below.
    let items = [orders, audit];
    const { list, store } = openBackups('/backups', () => allBackupsPageOf(items));
    await table();
    expect(screen.getByText(/stored/)).toHaveTextContent('2 backups · 2.5 MB stored · 1 failure');
    const asked = list.seen.length;

    const corrupt = aBackup({ ...orders, status: 'corrupt' });
    items = [corrupt, audit];
    act(() => {
      store.dispatch(hubEvent('BackupUpdated', { backup: corrupt }, 't'));
    });
    expect(await (await rowOf('orders')).findByText('Corrupt')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText(/stored/)).toHaveTextContent('2 backups · 2.5 MB stored · 2 failures'));
    expect(list.seen).toHaveLength(asked + 1);

    items = [corrupt];
    act(() => {
      store.dispatch(hubEvent('BackupDeleted', { id: 'b-2', instanceId: 'i-2' }, 't'));
    });
    await waitFor(() => expect(screen.queryByText('audit (deleted)')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByText(/stored/)).toHaveTextContent('1 backup · 2.5 MB stored · 1 failure'));
  });
});
