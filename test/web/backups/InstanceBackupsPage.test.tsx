import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { Backup } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import { formatDateTime } from '../../../src/components/DateTime';
import { hubEvent } from '../../../src/features/realtime/realtimeSlice';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { aBackup, aSha256, backupServer } from '../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../handlers/instancesHandlers';
import { problem, setupMsw } from '../msw';
import { renderApp } from '../renderApp';
import { pickOption } from '../pickOption';

const server = setupMsw();
// The screen is a lazy route: load its chunk once, so the first test does not pay for it.
beforeAll(() => import('../../../src/features/backups/InstanceBackupsPage'), 30_000);
// The first render of the console is slow in jsdom, slower still beside other suites.
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

const orders = anInstance({ id: 'i-1', name: 'orders' });
const verified = { at: '2025-02-02T06:00:00.000Z', ok: true, detail: '1 database, 1204 rows match' };
const older = aBackup({ id: 'b-1', startedAt: '2025-02-01T03:00:00.000Z', trigger: 'schedule', sizeBytes: 1_000_000, verification: verified });
const failed = aBackup({
  id: 'b-2',
  startedAt: '2025-02-02T03:00:00.000Z',
  status: 'failed',
  error: 'pg_dump: connection refused',
  durationMs: 850,
  sizeBytes: null,
  sha256: null,
  contents: null,
});
const newest = aBackup({ id: 'b-3', startedAt: '2025-02-03T03:00:00.000Z', sizeBytes: 2_500_000, durationMs: 185_000 });

function openBackups(path = '/instances/i-1/backups/database', options: Parameters<typeof backupServer>[0] = {}) {
  const backups = backupServer({ backups: [older, failed, newest], ...options });
  server.use(meHandler(admin), ...instanceServer(orders).handlers, ...backups.handlers);
  // One dialog follows another here; jsdom plays no exit animation, so the page can stay marked
  // inert behind the second one for a while. What is clicked is checked by role and name instead
  // (the end-to-end suite clicks these dialogs in Chromium).
  const user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
  return { ...renderApp(path), backups, user };
}

const table = async (name = 'Database backups') => within(await screen.findByRole('table', { name }, firstRender));
/** The row of a backup, found by its start time. */
const rowOf = async (backup: Backup, name?: string) =>
  within((await table(name)).getByText(formatDateTime(backup.startedAt)).closest('tr') as HTMLElement);
const dialog = async (name: string) => within(await screen.findByRole('dialog', { name }));
const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 50)));

describe('InstanceDatabaseBackupsPage', () => {
  it('shows the figures and the backups newest first, and joins the instance’s backup events', async () => {
    const { store } = openBackups();
    const rows = (await table()).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').slice(0, 7).map((cell) => cell.textContent));
    expect(cells).toEqual([
      ['Succeeded', formatDateTime(newest.startedAt), '3 min 5 s', '2.5 MB', 'Manual', 'e3b0c44298fc…Copy', 'Not verified'],
      ['Failed', formatDateTime(failed.startedAt), '850 ms', '—', 'Manual', '—', 'Not verified'],
      ['Succeeded', formatDateTime(older.startedAt), '42 s', '1.0 MB', 'Schedule', 'e3b0c44298fc…Copy', `Verified${verified.detail}`],
    ]);
    expect((await rowOf(failed)).getByText('Failed')).toHaveAttribute('title', 'pg_dump: connection refused');
    expect((await rowOf(newest)).getByTitle(aSha256)).toHaveTextContent('e3b0c44298fc…');

    const summary = within(screen.getByRole('region', { name: 'Summary' }));
    expect(summary.getByText('3 (1 failed)')).toBeInTheDocument();
    expect(summary.getByText(formatBytes(3_500_000))).toBeInTheDocument();
    expect(summary.getByText(formatDateTime(newest.startedAt))).toBeInTheDocument();

    expect(screen.getByRole('heading', { level: 1, name: 'Database backups' })).toBeInTheDocument();
    expect(screen.getByText(/Dumps and snapshots of the data of orders/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to orders' })).toHaveAttribute('href', '/instances/i-1');
    expect(Object.keys(store.getState().realtime.joined)).toContain('Backups(i-1)');
  });

  it('copies the whole checksum', async () => {
    const { user } = openBackups();
    const row = await rowOf(newest);
    const copied = jest.spyOn(navigator.clipboard, 'writeText');
    await user.click(row.getByRole('button', { name: 'Copy checksum e3b0c44298fc' }));
    expect(copied).toHaveBeenCalledWith(aSha256);
  });

  it('filters and sorts on the server, with every choice in the URL', async () => {
    const { backups, user, location } = openBackups('/instances/i-1/backups/database?page=2');
    await waitFor(() => expect(backups.listQueries.last()).toEqual({ page: '2', pageSize: '25' }), firstRender);

    await pickOption(user, screen.getByRole('combobox', { name: 'Status' }), 'Succeeded');
    await waitFor(() => expect(backups.listQueries.last()).toEqual({ page: '1', pageSize: '25', status: 'succeeded' }));
    await pickOption(user, screen.getByRole('combobox', { name: 'Trigger' }), 'Schedule');
    await waitFor(() => expect(backups.listQueries.last()).toMatchObject({ status: 'succeeded', trigger: 'schedule' }));
    fireEvent.change(screen.getByLabelText('Started from'), { target: { value: '2025-02-01' } });
    fireEvent.change(screen.getByLabelText('Started until'), { target: { value: '2025-02-02' } });
    await waitFor(() =>
      expect(backups.listQueries.last()).toEqual({
        page: '1',
        pageSize: '25',
        status: 'succeeded',
        trigger: 'schedule',
        // The person's local days, as instants.
        from: new Date('2025-02-01T00:00:00').toISOString(),
        to: new Date('2025-02-02T23:59:59.999').toISOString(),
      }),
    );
    expect(location()).toBe('/instances/i-1/backups/database?status=succeeded&trigger=schedule&from=2025-02-01&to=2025-02-02');
    expect((await table()).getAllByRole('row')).toHaveLength(2);

    await user.click((await table()).getByRole('button', { name: 'Size' }));
    await waitFor(() => expect(backups.listQueries.last().sort).toBe('sizeBytes'));
    expect(location()).toContain('sort=sizeBytes');
  });

  it('says when there are no backups yet', async () => {
    openBackups('/instances/i-1/backups/database', { backups: [] });
    expect(await screen.findByText('No database backups yet.', {}, firstRender)).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Summary' })).getByText('Never')).toBeInTheDocument();
  });

  it('says when no backup matches the filters', async () => {
    openBackups('/instances/i-1/backups/database?status=corrupt');
    expect(await screen.findByText('No backups match.', {}, firstRender)).toBeInTheDocument();
  });

  it('offers a retry when the list cannot be loaded', async () => {
    let fail = true;
    const { user, backups } = openBackups();
    server.use(http.get('/instances/:id/backups/database', () => (fail ? problem(500, 'Internal Server Error') : undefined)));
    expect(await screen.findByText('Could not load database backups.', {}, firstRender)).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await rowOf(newest)).toBeDefined();
    expect(backups.listQueries.seen).toHaveLength(1);
  });

  it('says so when the instance does not exist', async () => {
    server.use(meHandler(admin), ...instanceServer(null).handlers, ...backupServer().handlers);
    renderApp('/instances/i-9/backups/database');
    expect(await screen.findByText('No such instance', {}, firstRender)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'All backups' })).toHaveAttribute('href', '/backups');
  });

  it('shows an admin the kept backups of a deleted instance, without taking or restoring any', async () => {
    const kept = { ...newest, instanceExists: false };
    server.use(meHandler(admin), ...instanceServer(null).handlers, ...backupServer({ backups: [kept] }).handlers);
    renderApp('/instances/i-1/backups/database');
    const row = await rowOf(kept);
    expect(screen.getByText('This instance was deleted; its backups are kept.')).toBeInTheDocument();
    expect(screen.getByText(/Dumps and snapshots of the data of orders/)).toBeInTheDocument();
    expect(row.getByRole('button', { name: 'Restore' })).toBeDisabled();
    expect(row.getByRole('button', { name: 'Download' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Take backup' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Schedule and retention' })).not.toBeInTheDocument();
  });

  it('takes a backup and shows its progress as the hub reports it, until it finishes', async () => {
    const { user, backups, store } = openBackups();
    await table();
    const take = screen.getByRole('button', { name: 'Take backup' });
    await user.click(take);

    const bar = await screen.findByRole('progressbar', { name: 'Backup progress' });
    expect(backups.calls).toEqual(['POST database backup']);
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    expect(screen.getByRole('button', { name: 'Take backup' })).toBeDisabled();
    // The refetches the 202 asked for are in before the events arrive.
    await waitFor(() => expect(backups.state.summaryReads).toBe(2));
    await settle();
    const running = backups.state.backups[0];

    act(() => {
      store.dispatch(hubEvent('BackupProgress', { backupId: running.id, instanceId: 'i-1', bytes: 1_500_000, percent: 40, step: 'dumping shop' }, 't'));
    });
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Backup progress' })).toHaveAttribute('aria-valuenow', '40'));
    expect(screen.getByText('1.5 MB done · 40% · dumping shop')).toBeInTheDocument();
    expect((await rowOf(running)).getByText('40%')).toBeInTheDocument();

    act(() => {
      store.dispatch(hubEvent('BackupProgress', { backupId: running.id, instanceId: 'i-1', bytes: 2_900_000, percent: 97.6, step: 'writing the manifest' }, 't'));
    });
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Backup progress' })).toHaveAttribute('aria-valuenow', '98'));
    expect(screen.getByText('2.9 MB done · 98% · writing the manifest')).toBeInTheDocument();

    const done = aBackup({ ...running, status: 'succeeded', progress: null, sizeBytes: 3_000_000, durationMs: 4000, sha256: aSha256 });
    backups.state.backups = [done, ...backups.state.backups.slice(1)];
    act(() => {
      store.dispatch(hubEvent('BackupCompleted', { backup: done }, 't'));
    });
    await waitFor(() => expect(screen.queryByRole('progressbar')).not.toBeInTheDocument());
    expect(await screen.findByText('Backup finished')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Take backup' })).toBeEnabled();
    expect((await rowOf(done)).getByText('Succeeded')).toBeInTheDocument();
    expect((await rowOf(done)).getByText('3.0 MB')).toBeInTheDocument();
  });

  it('shows a running backup without a known total as a bar without a value', async () => {
    const running = aBackup({ id: 'b-9', status: 'running', startedAt: '2025-02-04T03:00:00.000Z', progress: { bytes: 2048, percent: null, step: 'snapshot' } });
    openBackups('/instances/i-1/backups/database', { backups: [running, newest] });
    const bar = await screen.findByRole('progressbar', { name: 'Backup progress' }, firstRender);
    expect(bar).not.toHaveAttribute('aria-valuenow');
    expect(bar).toHaveAttribute('aria-valuetext', '2.0 kB done · snapshot');
    expect(screen.getByRole('button', { name: 'Take backup' })).toBeDisabled();
    // A running backup cannot be deleted, downloaded or verified yet.
    const actions = within((await rowOf(running)).getByRole('group', { name: `Actions for the backup of ${formatDateTime(running.startedAt)}` }));
    for (const name of ['Download', 'Verify', 'Restore', 'Delete']) expect(actions.getByRole('button', { name })).toBeDisabled();
  });

  it('says a failed backup in a toast with its error', async () => {
    const { store } = openBackups();
    await table();
    act(() => {
      store.dispatch(hubEvent('BackupCompleted', { backup: aBackup({ ...failed, id: 'b-7', error: 'pg_dump: disk full' }) }, 't'));
    });
    const toast = await screen.findByRole('alert');
    expect(toast).toHaveTextContent('Backup failed');
    expect(toast).toHaveTextContent('pg_dump: disk full');
  });

  it('deletes a backup after a confirmation', async () => {
    const { user, backups } = openBackups();
    await user.click((await rowOf(older)).getByRole('button', { name: 'Delete' }));
    const question = await dialog('Delete this backup?');
    expect(question.getByText(/The database backup of orders taken .* is removed from storage/)).toBeInTheDocument();
    await user.click(question.getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByText(formatDateTime(older.startedAt))).not.toBeInTheDocument());
    expect(backups.calls).toEqual(['DELETE database b-1']);
    expect(await screen.findByText('Backup deleted')).toBeInTheDocument();
  });

  it('offers to delete the last good backup anyway, with the server’s reason, and then forces it', async () => {
    const { user, backups } = openBackups('/instances/i-1/backups/database', { backups: [failed, newest] });
    await user.click((await rowOf(newest)).getByRole('button', { name: 'Delete' }));
    await user.click((await dialog('Delete this backup?')).getByRole('button', { name: 'Delete' }));

    const anyway = await dialog('Delete this backup anyway?');
    expect(anyway.getByText('This is the last good backup of orders; without it the instance cannot be restored.')).toBeInTheDocument();
    expect(backups.calls).toEqual(['DELETE database b-3']);
    await user.click(anyway.getByRole('button', { name: 'Delete anyway' }));

    await waitFor(() => expect(backups.calls).toEqual(['DELETE database b-3', 'DELETE database b-3 force']));
    await waitFor(() => expect(screen.queryByText(formatDateTime(newest.startedAt))).not.toBeInTheDocument());
  });

  it('keeps the last good backup when "Delete anyway" is declined', async () => {
    const { user, backups } = openBackups('/instances/i-1/backups/database', { backups: [newest] });
    await user.click((await rowOf(newest)).getByRole('button', { name: 'Delete' }));
    await user.click((await dialog('Delete this backup?')).getByRole('button', { name: 'Delete' }));
    await user.click((await dialog('Delete this backup anyway?')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(backups.calls).toEqual(['DELETE database b-3']);
    expect(await rowOf(newest)).toBeDefined();
  });

  it('downloads through a fresh signed URL each time', async () => {
    const clicked: { href: string; download: boolean }[] = [];
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.hasAttribute('download') });
    });
    try {
      const { user, backups } = openBackups('/instances/i-1/backups/database', { downloadUrl: 'https://storage.example.com/b-3?sig=1' });
      const download = (await rowOf(newest)).getByRole('button', { name: 'Download' });
      await user.click(download);
      await waitFor(() => expect(clicked).toEqual([{ href: 'https://storage.example.com/b-3?sig=1', download: true }]));
      expect(backups.calls).toEqual(['GET url b-3']);
      // The button rests while its link is fetched; the second click waits for it, as a person would.
      await waitFor(() => expect(download).toBeEnabled());

      await user.click(download);
      await waitFor(() => expect(backups.calls).toEqual(['GET url b-3', 'GET url b-3']));
      expect(clicked).toHaveLength(2);
      // Nothing of the link stays in the page.
      expect(document.querySelector('a[download]')).toBeNull();
      expect((await rowOf(failed)).getByRole('button', { name: 'Download' })).toBeDisabled();
    } finally {
      click.mockRestore();
    }
  });

  it('verifies a backup and shows the result the hub brings', async () => {
    const { user, backups, store } = openBackups();
    await user.click((await rowOf(newest)).getByRole('button', { name: 'Verify' }));
    expect(await (await rowOf(newest)).findByText('Verifying…')).toBeInTheDocument();
    expect(backups.calls).toEqual(['POST verify b-3']);
    expect((await rowOf(newest)).getByRole('button', { name: 'Verify' })).toBeDisabled();

    const corrupt = aBackup({
      ...newest,
      status: 'corrupt',
      verification: { at: '2025-02-04T08:00:00.000Z', ok: false, detail: 'The stored file no longer matches its checksum.' },
    });
    backups.state.backups = backups.state.backups.map((backup) => (backup.id === corrupt.id ? corrupt : backup));
    act(() => {
      store.dispatch(hubEvent('BackupUpdated', { backup: corrupt }, 't'));
    });

    const row = await rowOf(newest);
    expect(await row.findByText('Does not match')).toBeInTheDocument();
    // On one line, the whole of it on hover, so it never pushes the row's buttons off-screen.
    expect(row.getByText('The stored file no longer matches its checksum.')).toHaveAttribute(
      'title',
      'The stored file no longer matches its checksum.',
    );
    expect(row.getByText('Corrupt')).toBeInTheDocument();
    expect(row.queryByText('Verifying…')).not.toBeInTheDocument();
    expect(row.getByRole('button', { name: 'Verify' })).toBeEnabled();
  });

  it('pins a backup so retention never deletes it, and unpins it', async () => {
    const bodies: unknown[] = [];
    const { user } = openBackups();
    server.use(
      http.put('/instances/i-1/backups/b-3/pin', async ({ request }) => {
        const body = (await request.json()) as { pinned: boolean };
        bodies.push(body);
        return HttpResponse.json({ ...newest, pinned: body.pinned });
      }),
    );
    await user.click((await rowOf(newest)).getByRole('button', { name: 'Pin' }));
    const pinned = await (await rowOf(newest)).findByRole('button', { name: 'Pinned' });
    expect(pinned).toHaveAttribute('aria-pressed', 'true');

    await user.click(pinned);
    expect(await (await rowOf(newest)).findByRole('button', { name: 'Pin' })).toHaveAttribute('aria-pressed', 'false');
    expect(bodies).toEqual([{ pinned: true }, { pinned: false }]);
  });

  it('restores a backup into a new instance named in the dialog, then opens it', async () => {
    const checked: string[] = [];
    const restored = anInstance({ id: 'i-new', name: 'orders-restored', status: 'unInitialized', operation: { kind: 'clone', startedAt: 't' } });
    const { user, backups, location } = openBackups('/instances/i-1/backups/database', { clone: restored });
    server.use(
      http.post('/instances/validate-name', async ({ request }) => {
        const { name } = (await request.json()) as { name: string };
        checked.push(name);
        return HttpResponse.json(name === 'orders' ? { valid: false, reason: 'An instance named orders already exists.' } : { valid: true });
      }),
      http.get('/instances/i-new', () => HttpResponse.json(restored)),
    );
    expect((await rowOf(failed)).getByRole('button', { name: 'Restore' })).toBeDisabled();
    await user.click((await rowOf(newest)).getByRole('button', { name: 'Restore' }));

    const form = await dialog('Restore to a new instance');
    const name = form.getByRole('textbox', { name: 'New instance name' });
    await user.type(name, 'Orders');
    expect(form.getByText('The name must start with a lower-case letter.')).toBeInTheDocument();
    await user.click(form.getByRole('button', { name: 'Restore' }));
    expect(backups.calls).toEqual([]);

    await user.clear(name);
    await user.type(name, 'orders');
    expect(await form.findByText('An instance named orders already exists.')).toBeInTheDocument();
    await user.type(name, '-restored');
    expect(await form.findByText('This name is available.')).toBeInTheDocument();
    await user.click(form.getByRole('button', { name: 'Restore' }));

    await waitFor(() => expect(location()).toBe('/instances/i-new'));
    expect(backups.calls).toEqual(['POST clone']);
    expect(backups.bodies).toEqual([{ name: 'orders-restored', backupId: 'b-3' }]);
    expect(checked).toContain('orders-restored');
    expect(await screen.findByRole('heading', { level: 1, name: 'orders-restored' })).toBeInTheDocument();
  });

  it('reaches every row action by keyboard', async () => {
    const { user } = openBackups();
    const actions = within((await rowOf(newest)).getByRole('group', { name: `Actions for the backup of ${formatDateTime(newest.startedAt)}` }));
    actions.getByRole('button', { name: 'Download' }).focus();
    await user.tab();
    expect(actions.getByRole('button', { name: 'Verify' })).toHaveFocus();
    await user.tab();
    expect(actions.getByRole('button', { name: 'Pin' })).toHaveFocus();
    await user.tab();
    expect(actions.getByRole('button', { name: 'Restore' })).toHaveFocus();
    await user.tab();
    expect(actions.getByRole('button', { name: 'Delete' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(await dialog('Delete this backup?')).toBeDefined();
  });
});

describe('InstanceFileBackupsPage', () => {
  const files = aBackup({ id: 'f-1', kind: 'file', format: 'tar.gz', startedAt: '2025-02-03T05:00:00.000Z', contents: { dataDirectory: false } });
  const files2 = aBackup({ id: 'f-2', kind: 'file', format: 'tar.gz', startedAt: '2025-02-02T05:00:00.000Z', contents: { dataDirectory: true } });

  it('lists the file backups, takes one through …/files, and deletes under …/file', async () => {
    const { user, backups } = openBackups('/instances/i-1/backups/files', { backups: [newest, files, files2] });
    const rows = (await table('File backups')).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(screen.getByRole('heading', { level: 1, name: 'File backups' })).toBeInTheDocument();
    // Restoring and the schedule are for database backups.
    expect(within(rows[0]).queryByRole('button', { name: 'Restore' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Schedule and retention' })).not.toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Summary' })).getByText('2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Take backup' }));
    expect(await screen.findByRole('progressbar', { name: 'Backup progress' })).toBeInTheDocument();
    await user.click((await rowOf(files2, 'File backups')).getByRole('button', { name: 'Delete' }));
    await user.click((await dialog('Delete this backup?')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(backups.calls).toEqual(['POST file backup', 'DELETE file f-2']));
  });
});
