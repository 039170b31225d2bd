import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { formatBytes } from '../../../contracts/backupValues';
import { formatDateTime } from '../../../src/components/DateTime';
import { hubEvent } from '../../../src/features/realtime/realtimeSlice';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { aBackup, aSchedule, backupServer } from '../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../handlers/instancesHandlers';
import { validationProblem } from '../handlers/pages';
import { setupMsw } from '../msw';
import { renderApp } from '../renderApp';
import { pickOption } from '../pickOption';

const server = setupMsw();
beforeAll(() => import('../../../src/features/backups/InstanceBackupsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

function openSchedule(options: Parameters<typeof backupServer>[0] = {}) {
  const backups = backupServer(options);
  server.use(meHandler(admin), ...instanceServer(anInstance({ id: 'i-1', name: 'orders' })).handlers, ...backups.handlers);
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1/backups/database'), backups, user };
}

const section = async () => {
  const region = await screen.findByRole('region', { name: 'Schedule and retention' }, firstRender);
  await within(region).findByRole('button', { name: 'Save' });
  return within(region);
};

describe('Schedule and retention', () => {
  it('shows the saved schedule and its next runs in the person’s own time', async () => {
    const schedule = aSchedule({ keepLast: 7, keepDays: 30 });
    openSchedule({ schedule });
    const form = await section();
    expect(form.getByRole('checkbox', { name: 'Take backups on this schedule' })).toBeChecked();
    expect(form.getByRole('textbox', { name: 'Cron' })).toHaveValue('0 3 * * *');
    expect(form.getByRole('combobox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
    expect(form.getByRole('textbox', { name: 'Keep the last N backups' })).toHaveValue('7');
    expect(form.getByRole('textbox', { name: 'Keep backups for D days' })).toHaveValue('30');

    const runs = form.getByRole('list', { name: 'Next runs, in your time' });
    const items = within(runs).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual(schedule.nextRuns.map((run) => formatDateTime(run)));
    expect(items[0].querySelector('time')).toHaveAttribute('datetime', schedule.nextRuns[0]);
    expect(form.getByText(formatDateTime(schedule.lastRunAt!))).toBeInTheDocument();
  });

  it('takes physical backups on the schedule of a pg instance when asked, and dumps otherwise', async () => {
    const { user, backups } = openSchedule();
    const form = await section();
    const method = form.getByRole('combobox', { name: 'Each run takes' });
    expect(method).toHaveTextContent('A dump (pg_dump of every database)');
    await pickOption(user, method, /A physical backup for point-in-time recovery/);
    await user.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backups.bodies).toEqual([expect.objectContaining({ method: 'physical' })]));
  });

  it('offers no physical backups on an etcd instance', async () => {
    const backups = backupServer({});
    server.use(meHandler(admin), ...instanceServer(anInstance({ id: 'i-1', name: 'keys', type: 'etcd' })).handlers, ...backups.handlers);
    renderApp('/instances/i-1/backups/database');
    const form = await section();
    expect(form.queryByRole('combobox', { name: 'Each run takes' })).not.toBeInTheDocument();
  });

  it('shows the server’s complaints beside the fields, until the field is changed', async () => {
    const { user, backups } = openSchedule({
      saveSchedule: () => validationProblem({ cron: ['Expected 5 fields, got 4.'], timeZone: ['Unknown time zone Mars/Olympus.'] }),
    });
    const form = await section();
    const cron = form.getByRole('textbox', { name: 'Cron' });
    await user.clear(cron);
    await user.type(cron, '0 3 * *');
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await form.findByText('Expected 5 fields, got 4.')).toBeInTheDocument();
    expect(form.getByText('Unknown time zone Mars/Olympus.')).toBeInTheDocument();
    expect(cron).toHaveAttribute('aria-invalid', 'true');
    expect(backups.bodies).toEqual([{ enabled: true, cron: '0 3 * *', timeZone: 'Europe/Berlin', keepLast: 7, keepDays: null, includeManual: false, method: 'dump' }]);

    await user.type(cron, ' *');
    expect(form.queryByText('Expected 5 fields, got 4.')).not.toBeInTheDocument();
    expect(form.getByText('Unknown time zone Mars/Olympus.')).toBeInTheDocument();
  });

  it('refuses a retention limit out of bounds before asking the server', async () => {
    const { user, backups } = openSchedule();
    const form = await section();
    const keepLast = form.getByRole('textbox', { name: 'Keep the last N backups' });
    await user.clear(keepLast);
    await user.type(keepLast, '0');
    expect(form.getByText('A whole number from 1 to 1000, or empty for no limit.')).toBeInTheDocument();
    expect(form.getByRole('button', { name: 'Preview retention' })).toBeDisabled();
    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(backups.calls).toEqual([]);
  });

  it('saves the schedule and shows what the server made of it', async () => {
    const { user, backups } = openSchedule();
    const form = await section();
    await user.click(form.getByRole('checkbox', { name: 'Take backups on this schedule' }));
    await pickOption(user, form.getByRole('combobox', { name: 'Time zone' }), 'UTC');
    await user.clear(form.getByRole('textbox', { name: 'Keep the last N backups' }));
    await user.type(form.getByRole('textbox', { name: 'Keep backups for D days' }), '14');
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Schedule saved')).toBeInTheDocument();
    expect(backups.bodies).toEqual([{ enabled: false, cron: '0 3 * * *', timeZone: 'UTC', keepLast: null, keepDays: 14, includeManual: false, method: 'dump' }]);
    expect(await form.findByText('No backups are scheduled: the schedule is off.')).toBeInTheDocument();
    expect(form.queryByRole('list', { name: 'Next runs, in your time' })).not.toBeInTheDocument();
  });

  it('applies the limits to manual backups only when asked, in the preview and the saved schedule', async () => {
    const { user, backups } = openSchedule({ preview: () => ({ wouldDelete: [], keptCount: 3, freedBytes: 0 }) });
    const form = await section();
    const manualToo = form.getByRole('checkbox', { name: /manual backups too/ });
    expect(manualToo).not.toBeChecked();
    await user.click(manualToo);
    await user.click(form.getByRole('button', { name: 'Preview retention' }));
    await waitFor(() => expect(backups.bodies).toEqual([{ keepLast: 7, keepDays: null, includeManual: true }]));
    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Schedule saved')).toBeInTheDocument();
    expect(backups.calls.slice(0, 2)).toEqual(['POST retention preview', 'PUT schedule']);
    expect(backups.bodies[1]).toMatchObject({ cron: '0 3 * * *', includeManual: true });
  });

  it('previews what a retention policy would delete, without saving it', async () => {
    const doomed = [
      aBackup({ id: 'b-1', startedAt: '2025-01-01T03:00:00.000Z', sizeBytes: 1_500_000 }),
      aBackup({ id: 'b-2', startedAt: '2025-01-02T03:00:00.000Z', sizeBytes: 2_200_000, status: 'failed' }),
    ];
    const { user, backups } = openSchedule({
      preview: ({ keepLast }) => (keepLast === 2 ? { wouldDelete: doomed, keptCount: 2, freedBytes: 3_700_000 } : { wouldDelete: [], keptCount: 4, freedBytes: 0 }),
    });
    const form = await section();
    const keepLast = form.getByRole('textbox', { name: 'Keep the last N backups' });
    await user.clear(keepLast);
    await user.type(keepLast, '2');
    await user.click(form.getByRole('button', { name: 'Preview retention' }));

    expect(await form.findByText('This policy would delete 2 backups now')).toBeInTheDocument();
    expect(form.getByText(`${formatBytes(3_700_000)} freed, 2 backups kept.`)).toBeInTheDocument();
    const rows = within(form.getByRole('table', { name: 'Backups the policy would delete' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      `${formatDateTime(doomed[0].startedAt)}DatabaseSucceeded1.5 MB`,
      `${formatDateTime(doomed[1].startedAt)}DatabaseFailed2.2 MB`,
    ]);
    expect(backups.bodies).toEqual([{ keepLast: 2, keepDays: null, includeManual: false }]);
    expect(backups.calls).toEqual(['POST retention preview']);

    // Once shown, the preview follows the limits as they are typed, asking when typing pauses.
    await user.type(keepLast, '05');
    expect(await form.findByText('This policy would delete nothing now')).toBeInTheDocument();
    expect(backups.bodies).toEqual([
      { keepLast: 2, keepDays: null, includeManual: false },
      { keepLast: 205, keepDays: null, includeManual: false },
    ]);
    await user.click(form.getByRole('button', { name: 'Hide preview' }));
    expect(form.queryByText('This policy would delete nothing now')).not.toBeInTheDocument();
  });

  it('follows the edited and the saved policy, and the backups it is about', async () => {
    const doomed = [aBackup({ id: 'b-1', sizeBytes: 1_000_000 }), aBackup({ id: 'b-2', sizeBytes: 2_000_000 })];
    const { user, backups, store } = openSchedule({
      backups: doomed,
      // Keeping the last 1 of 3 deletes what is left of the two oldest.
      preview: ({ keepLast }) => {
        const gone = keepLast === 1 ? backups.state.backups : [];
        return { wouldDelete: gone, keptCount: 1, freedBytes: gone.reduce((sum, b) => sum + (b.sizeBytes ?? 0), 0) };
      },
    });
    const form = await section();
    await user.click(form.getByRole('button', { name: 'Preview retention' }));
    expect(await form.findByText('This policy would delete nothing now')).toBeInTheDocument();

    const keepLast = form.getByRole('textbox', { name: 'Keep the last N backups' });
    await user.clear(keepLast);
    await user.type(keepLast, '1');
    expect(await form.findByText('This policy would delete 2 backups now')).toBeInTheDocument();

    await user.click(form.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Schedule saved')).toBeInTheDocument();
    expect(form.getByText('This policy would delete 2 backups now')).toBeInTheDocument();

    // A backup deleted elsewhere is no longer among those the saved policy would delete.
    backups.state.backups = backups.state.backups.filter((b) => b.id !== 'b-1');
    act(() => {
      store.dispatch(hubEvent('BackupDeleted', { id: 'b-1', instanceId: 'i-1' }, 't'));
    });
    expect(await form.findByText('This policy would delete 1 backup now')).toBeInTheDocument();
    expect(form.getByText(`${formatBytes(2_000_000)} freed, 1 backup kept.`)).toBeInTheDocument();
  });
});
