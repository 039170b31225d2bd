import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { RecoveryCheck, RecoveryWindow } from '../../../contracts/pitr';
import { formatDateTime } from '../../../src/components/DateTime';
import { hubEvent } from '../../../src/features/realtime/realtimeSlice';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { archivingOff, backupServer } from '../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../handlers/instancesHandlers';
import { validationProblem } from '../handlers/pages';
import { ago, aPhysicalBackup, aRecoveryCheck, aRecoveryWindow, pitrServer } from '../handlers/pitrHandlers';
import { pickOption } from '../pickOption';
import { problem, setupMsw } from '../msw';
import { renderApp } from '../renderApp';

const server = setupMsw();
beforeAll(() => import('../../../src/features/backups/InstanceDatabaseBackupsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };
const hour = 3_600_000;
const at = (iso: string) => formatDateTime(iso, { seconds: true });

function openPage(options: Parameters<typeof pitrServer>[0] = {}, instance = anInstance({ id: 'i-1', name: 'orders' })) {
  const pitr = pitrServer(options);
  // The window and the backup kinds of this fake come before the quiet answers of the backups fake.
  server.use(meHandler(admin), ...pitr.handlers, ...instanceServer(instance).handlers, ...backupServer({ backups: [] }).handlers);
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1/backups/database'), pitr, user };
}

const section = async () => within(await screen.findByRole('region', { name: 'Point-in-time recovery' }, firstRender));
const dialog = async (name: string) => within(await screen.findByRole('dialog', { name }));

describe('the recoverable window on the database backups page', () => {
  const full = aPhysicalBackup({ id: '20261126-080000F', kind: 'full', startedAt: ago(3 * hour + 60_000), finishedAt: ago(3 * hour) });
  const diff = aPhysicalBackup({ id: '20261126-080000F_20261126-093000D', kind: 'diff', startedAt: ago(2 * hour + 30_000), finishedAt: ago(2 * hour) });
  const incr = aPhysicalBackup({ id: '20261126-080000F_20261126-103000I', kind: 'incr', startedAt: ago(hour + 10_000), finishedAt: ago(hour) });
  const gap = { from: ago(90 * 60_000), to: ago(80 * 60_000), reason: 'WAL segment 00000001000000000000000C is missing from the repository.' };
  const point = { name: 'before-migration', at: ago(30 * 60_000), lsn: '0/7000090', createdBy: 'ada@example.com' };
  const window = aRecoveryWindow({
    earliest: full.finishedAt,
    backups: [full, diff, incr],
    gaps: [gap],
    restorePoints: [point],
    lastFailedAt: ago(5 * 60_000),
    lastFailedWal: '00000001000000000000000D',
  });

  it('draws the window as a band with its backups, gaps, failures and restore points, and writes them out', async () => {
    openPage({ window });
    const region = await section();
    const figure = within(await region.findByRole('figure', { name: `Recoverable from ${at(window.earliest!)} to ${at(window.latest!)}` }));

    // For screen readers: every mark in words.
    const marks = within(figure.getByRole('list', { name: 'On the timeline' }));
    expect(marks.getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      `Full backup ${full.id}, restorable from ${at(full.finishedAt)}`,
      `Differential backup ${diff.id}, restorable from ${at(diff.finishedAt)}`,
      `Incremental backup ${incr.id}, restorable from ${at(incr.finishedAt)}`,
      `Restore point before-migration, ${at(point.at)}`,
    ]);
    // Problems in words for everyone, not only in red.
    const problems = within(figure.getByRole('list', { name: 'Problems of the window' }));
    expect(problems.getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      `Gap ${at(gap.from)} – ${at(gap.to)}: ${gap.reason}`,
      `Last archive failure ${at(window.lastFailedAt!)} (WAL 00000001000000000000000D), archived again since.`,
    ]);
    // The drawing: one mark per backup with its kind's letter, the gap, the flag; a legend that tells the shapes apart.
    expect(figure.getByTitle(`Full backup ${full.id}, restorable from ${at(full.finishedAt)}`)).toHaveTextContent('F');
    expect(figure.getByTitle(`Differential backup ${diff.id}, restorable from ${at(diff.finishedAt)}`)).toHaveTextContent('D');
    expect(figure.getByTitle(`Incremental backup ${incr.id}, restorable from ${at(incr.finishedAt)}`)).toHaveTextContent('I');
    expect(figure.getByTitle(`Gap ${at(gap.from)} – ${at(gap.to)}: ${gap.reason}`)).toBeInTheDocument();
    expect(figure.getByTitle(`Restore point before-migration, ${at(point.at)}`)).toHaveTextContent('⚑ before-migration');
    const legend = within(figure.getByRole('list', { name: 'Legend' }));
    expect(legend.getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'FFull backup',
      'DDifferential backup',
      'IIncremental backup',
      '⚑Restore point',
      'Gap',
      '✕Archive failure',
    ]);

    expect(figure.getByText(/^1\d s ago$/)).toHaveAttribute('datetime', window.latest);
    expect(region.getByText("This server's disk")).toBeInTheDocument();
    expect(region.getByText('1 min')).toBeInTheDocument();
    expect(region.getByText('7 days')).toBeInTheDocument();
  });

  it('says in words when archiving is failing, with the reason', async () => {
    openPage({
      window: aRecoveryWindow({
        lastFailedAt: ago(20_000),
        lastArchivedAt: ago(5 * 60_000),
        lastFailedWal: '00000001000000000000000E',
        reason: 'archive-push: the repository is full',
      }),
    });
    const problems = within(await (await section()).findByRole('list', { name: 'Problems of the window' }));
    expect(problems.getByRole('listitem')).toHaveTextContent(
      /^Archiving failed .* \(WAL 00000001000000000000000E\), nothing archived since: archive-push: the repository is full$/,
    );
  });

  it('ages "Latest restorable" every second, and moves it when the hub says the window changed', async () => {
    const { store, pitr } = openPage({ window: aRecoveryWindow({ latest: ago(12_000) }) });
    const region = await section();
    const latest = await region.findByText(/^1\d s ago$/);
    const first = latest.textContent;
    await waitFor(() => expect(latest.textContent).not.toBe(first), { timeout: 3000 });
    expect(latest).toHaveTextContent(/^1\d s ago$/);
    // The page follows its backups; the window's changes come to the instance's group.
    expect(Object.keys(store.getState().realtime.joined)).toEqual(expect.arrayContaining(['Backups(i-1)', 'Instance(i-1)']));

    const moved: RecoveryWindow = aRecoveryWindow({ latest: ago(0), restorePoints: [{ name: 'after-deploy', at: ago(1000), lsn: '0/A000028', createdBy: null }] });
    act(() => {
      store.dispatch(hubEvent('RecoveryWindowChanged', { instanceId: 'i-1', window: moved }, 't'));
    });
    expect(await region.findByText(/^(just now|[0-2] s ago)$/)).toHaveAttribute('datetime', moved.latest);
    expect(region.getByText(`Restore point after-deploy, ${at(moved.restorePoints[0].at)}`)).toBeInTheDocument();
    // Patched from the event, not read again.
    expect(pitr.state.windowReads).toBe(1);
  });

  it('takes a physical backup of the chosen kind, while "Take backup" still takes a dump', async () => {
    const { user, pitr } = openPage();
    const region = await section();
    await region.findByRole('figure');
    await pickOption(user, region.getByRole('combobox', { name: 'Kind of physical backup' }), /^Differential/);
    await user.click(region.getByRole('button', { name: 'Take physical backup' }));
    await waitFor(() => expect(pitr.bodies).toEqual([{ kind: 'diff' }]));

    await user.click(screen.getByRole('button', { name: 'Take backup' }));
    await waitFor(() => expect(pitr.bodies).toEqual([{ kind: 'diff' }, {}]));
  });

  it('says the window starts with the first full backup, and takes one', async () => {
    const { user, pitr } = openPage({ window: aRecoveryWindow({ earliest: null, latest: null, backups: [] }) });
    const region = await section();
    expect(await region.findByText('No physical backup yet: the window starts with the first full backup.')).toBeInTheDocument();
    expect(region.getByRole('button', { name: 'Restore to a point in time…' })).toBeDisabled();
    // Differential and incremental backups build on a full one.
    await user.click(region.getByRole('combobox', { name: 'Kind of physical backup' }));
    expect(screen.getByRole('option', { name: /^Differential/ })).toHaveAttribute('aria-disabled', 'true');
    await user.keyboard('{Escape}');

    await user.click(region.getByRole('button', { name: 'Take a full backup' }));
    await waitFor(() => expect(pitr.bodies).toEqual([{ kind: 'full' }]));
  });

  it('gives the reason when WAL is not archived, and offers nothing to do', async () => {
    openPage({ window: { ...archivingOff(), reason: 'Archiving is turned off for instances of this group.' } });
    const region = await section();
    expect(await region.findByText('WAL archiving is off for this instance.')).toBeInTheDocument();
    expect(region.getByText('Archiving is turned off for instances of this group.')).toBeInTheDocument();
    expect(region.queryByRole('button', { name: 'Restore to a point in time…' })).not.toBeInTheDocument();
    expect(region.queryByRole('button', { name: 'Take physical backup' })).not.toBeInTheDocument();
  });

  it('shows nothing of it for an etcd instance', async () => {
    const { pitr } = openPage({}, anInstance({ id: 'i-1', name: 'registry', type: 'etcd' }));
    expect(await screen.findByText('No database backups yet.', {}, firstRender)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Point-in-time recovery' })).not.toBeInTheDocument();
    expect(pitr.state.windowReads).toBe(0);
  });

  it('says while it loads, and offers a retry when it cannot be loaded', async () => {
    let answer: () => Response = () => problem(500, 'Internal Server Error', 'pgbackrest info failed');
    let release = () => {};
    const { user } = openPage();
    server.use(
      http.get('/instances/:id/recovery-window', async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return answer();
      }),
    );
    const region = await section();
    expect(await region.findByText('Loading the recoverable window…')).toBeInTheDocument();
    release();
    expect(await region.findByText('Could not load the recoverable window.')).toBeInTheDocument();
    answer = () => HttpResponse.json(aRecoveryWindow());
    await user.click(region.getByRole('button', { name: 'Retry' }));
    release();
    expect(await region.findByRole('figure')).toBeInTheDocument();
  });

  it('marks a restore point by a name of the allowed characters, and flags it on the band', async () => {
    const { user, pitr } = openPage();
    const region = await section();
    await user.click(await region.findByRole('button', { name: 'Mark restore point…' }));
    const form = await dialog('Mark a restore point');
    const name = form.getByRole('textbox', { name: 'Restore point name' });
    await user.type(name, 'before/migration');
    expect(form.getByText('Up to 63 letters, digits, spaces and . _ : -, starting with a letter or digit.')).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    await user.click(form.getByRole('button', { name: 'Mark restore point' }));
    expect(pitr.calls).toEqual([]);

    await user.clear(name);
    await user.type(name, 'before migration 42');
    await user.click(form.getByRole('button', { name: 'Mark restore point' }));
    await waitFor(() => expect(pitr.bodies).toEqual([{ name: 'before migration 42' }]));
    expect(await screen.findByText('Restore point marked')).toBeInTheDocument();
    expect(await region.findByText(/^Restore point before migration 42, /)).toBeInTheDocument();
  });

  it('shows the server’s word on a restore point’s name beside the field, without a toast', async () => {
    const { user, store } = openPage();
    server.use(http.post('/instances/:id/restore-points', () => validationProblem({ name: ['A restore point with this name exists.'] })));
    await user.click(await (await section()).findByRole('button', { name: 'Mark restore point…' }));
    const form = await dialog('Mark a restore point');
    await user.type(form.getByRole('textbox', { name: 'Restore point name' }), 'nightly');
    await user.click(form.getByRole('button', { name: 'Mark restore point' }));
    expect(await form.findByText('A restore point with this name exists.')).toBeInTheDocument();
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('changes the archive timeout and the days the window reaches back', async () => {
    const { user, pitr } = openPage();
    const region = await section();
    await user.click(await region.findByRole('button', { name: 'Archive settings…' }));
    const form = await dialog('Archive settings');
    const timeout = form.getByRole('textbox', { name: 'Archive timeout (seconds)' });
    expect(timeout).toHaveValue('60');
    await user.clear(timeout);
    await user.type(timeout, '5');
    expect(form.getByText('A whole number from 10 to 600.')).toBeInTheDocument();
    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(pitr.calls).toEqual([]);

    await user.type(timeout, '0');
    await user.clear(form.getByRole('textbox', { name: 'Window (days)' }));
    await user.type(form.getByRole('textbox', { name: 'Window (days)' }), '14');
    await user.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(pitr.bodies).toEqual([{ archiveTimeoutSeconds: 50, retentionDays: 14 }]));
    expect(await screen.findByText('Archive settings saved')).toBeInTheDocument();
    expect(await region.findByText('14 days')).toBeInTheDocument();
    expect(region.getByText('50 s')).toBeInTheDocument();
  });
});

describe('proving the window: restore drills and verifications of the repository', () => {
  const minute = (iso: string) => formatDateTime(iso);
  /** A line of the section by its whole text, which runs across the moment's <time>. */
  const line = (text: string) => (_: string, element: Element | null) => element?.tagName === 'P' && element.textContent === text;
  const aVerification = (overrides: Partial<RecoveryCheck> = {}) =>
    aRecoveryCheck({ kind: 'verify', targetTime: null, backupId: null, recoverySeconds: null, detail: 'Every backup and WAL file of the repository matches its checksum.', ...overrides });
  const buttons = (region: ReturnType<typeof within>) => [
    region.getByRole('button', { name: 'Run restore drill' }),
    region.getByRole('button', { name: 'Verify repository' }),
  ];

  it('says that none has run yet', async () => {
    openPage();
    const region = await section();
    expect(await region.findByText('No drill yet: one runs every week, the first an hour after the first full backup.')).toBeInTheDocument();
    expect(region.getByText('Repository not verified yet.')).toBeInTheDocument();
    for (const button of buttons(region)) expect(button).toBeEnabled();
  });

  it('says how long the last drill took, when it ran and what it restored, and when the repository was verified', async () => {
    const drill = aRecoveryCheck();
    const verify = aVerification({ at: ago(10 * 60_000) });
    openPage({ window: aRecoveryWindow({ lastDrill: drill, lastVerify: verify }) });
    const region = await section();
    expect(
      await region.findByText(line(`Last restore drill: took 3 min 12 s, ${minute(drill.at)} — restored to ${at(drill.targetTime!)} from backup 20261126-100000F`)),
    ).toBeInTheDocument();
    expect(region.getByText(line(`Repository verified ${minute(verify.at)}`))).toBeInTheDocument();
    expect(region.getByText(minute(drill.at))).toHaveAttribute('datetime', drill.at);
  });

  it('says in words when the last drill or verification failed, with the server’s account', async () => {
    const drill = aRecoveryCheck({ ok: false, recoverySeconds: null, detail: 'The drill failed: pg_ctl: could not start server' });
    const verify = aVerification({ ok: false, detail: 'The repository failed verification: checksum mismatch in 000000010000000000000004' });
    openPage({ window: aRecoveryWindow({ lastDrill: drill, lastVerify: verify }) });
    const region = await section();
    expect(await region.findByText(line(`Last restore drill failed, ${minute(drill.at)}: The drill failed: pg_ctl: could not start server`))).toBeInTheDocument();
    expect(
      region.getByText(line(`Repository verification failed, ${minute(verify.at)}: The repository failed verification: checksum mismatch in 000000010000000000000004`)),
    ).toBeInTheDocument();
    expect(region.queryByText(/^Last restore drill: took/)).not.toBeInTheDocument();
    expect(region.queryByText(/^Repository verified/)).not.toBeInTheDocument();
  });

  it('runs a restore drill on demand: busy until the hub brings the result, one at a time', async () => {
    const { user, pitr, store } = openPage();
    const region = await section();
    await user.click(await region.findByRole('button', { name: 'Run restore drill' }));
    await waitFor(() => expect(pitr.calls).toEqual(['POST pitr drill']));
    expect(pitr.bodies).toEqual([{}]);
    expect(await region.findByText('A drill or verification runs…')).toBeInTheDocument();
    for (const button of buttons(region)) await waitFor(() => expect(button).toBeDisabled());

    const drill = aRecoveryCheck({ at: ago(0), recoverySeconds: 12.4 });
    act(() => {
      store.dispatch(hubEvent('RecoveryWindowChanged', { instanceId: 'i-1', window: aRecoveryWindow({ lastDrill: drill }) }, 't'));
    });
    expect(
      await region.findByText(line(`Last restore drill: took 12 s, ${minute(drill.at)} — restored to ${at(drill.targetTime!)} from backup 20261126-100000F`)),
    ).toBeInTheDocument();
    expect(region.queryByText('A drill or verification runs…')).not.toBeInTheDocument();
    for (const button of buttons(region)) expect(button).toBeEnabled();
    // The answer of the call was shown, not read again.
    expect(pitr.state.windowReads).toBe(1);
  });

  it('verifies the repository on demand', async () => {
    const { user, pitr, store } = openPage();
    const region = await section();
    await user.click(await region.findByRole('button', { name: 'Verify repository' }));
    await waitFor(() => expect(pitr.calls).toEqual(['POST pitr verify']));
    expect(await region.findByText('A drill or verification runs…')).toBeInTheDocument();

    const verify = aVerification({ at: ago(0) });
    act(() => {
      store.dispatch(hubEvent('RecoveryWindowChanged', { instanceId: 'i-1', window: aRecoveryWindow({ lastVerify: verify }) }, 't'));
    });
    expect(await region.findByText(line(`Repository verified ${minute(verify.at)}`))).toBeInTheDocument();
    expect(region.getByText('No drill yet: one runs every week, the first an hour after the first full backup.')).toBeInTheDocument();
  });

  it('shows one that runs already as the page opens', async () => {
    openPage({ window: aRecoveryWindow({ checking: true }) });
    const region = await section();
    expect(await region.findByText('A drill or verification runs…')).toBeInTheDocument();
    for (const button of buttons(region)) expect(button).toBeDisabled();
  });

  it('toasts the server’s refusal when one was started elsewhere meanwhile, and shows it running', async () => {
    const { user, pitr } = openPage();
    const region = await section();
    const verify = await region.findByRole('button', { name: 'Verify repository' });
    // The weekly drill, say, began after this page read the window.
    pitr.state.window = { ...pitr.state.window, checking: true };
    await user.click(verify);
    expect(await screen.findByText('A drill or verification of orders runs now: wait for it to finish.')).toBeInTheDocument();
    expect(await region.findByText('A drill or verification runs…')).toBeInTheDocument();
    for (const button of buttons(region)) expect(button).toBeDisabled();
    expect(pitr.state.windowReads).toBe(2);
  });

  it('offers neither before the first physical backup', async () => {
    openPage({ window: aRecoveryWindow({ earliest: null, latest: null, backups: [] }) });
    const region = await section();
    await region.findByText('No physical backup yet: the window starts with the first full backup.');
    for (const button of buttons(region)) expect(button).toBeDisabled();
  });
});
