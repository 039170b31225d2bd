/** @jest-environment ./test/web/pitr/berlinEnvironment.ts */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { admin } from '../fixtures';
import { meHandler } from '../handlers/authHandlers';
import { backupServer } from '../handlers/backupsHandlers';
import { anInstance, instanceServer } from '../handlers/instancesHandlers';
import { validationProblem } from '../handlers/pages';
import { ago, aPhysicalBackup, aPlan, aRecoveryCheck, aRecoveryWindow, pitrServer } from '../handlers/pitrHandlers';
import { problem, setupMsw } from '../msw';
import { pickOption } from '../pickOption';
import { renderApp } from '../renderApp';

// This file's browser is in Europe/Berlin (UTC+1 in November): see berlinEnvironment.ts.
const server = setupMsw();
beforeAll(() => import('../../../src/features/backups/InstanceDatabaseBackupsPage'), 30_000);
jest.setTimeout(20_000);
const firstRender = { timeout: 5000 };

/** Two hours of window in UTC: 11:00:00–13:00:00 on the person's clock. */
const fixedWindow = aRecoveryWindow({
  earliest: '2026-11-26T10:00:00Z',
  latest: '2026-11-26T12:00:00Z',
  backups: [aPhysicalBackup({ id: '20261126-095500F', startedAt: '2026-11-26T09:55:00Z', finishedAt: '2026-11-26T10:00:00Z' })],
  restorePoints: [{ name: 'before-migration', at: '2026-11-26T11:30:00Z', lsn: '0/7000090', createdBy: 'ada@example.com' }],
});

async function openRestore(options: Parameters<typeof pitrServer>[0] = {}) {
  const pitr = pitrServer({ window: fixedWindow, ...options });
  const restored = pitr.restored;
  server.use(
    meHandler(admin),
    http.get(`/instances/${restored.id}`, () => HttpResponse.json(restored)),
    ...pitr.handlers,
    ...instanceServer(anInstance({ id: 'i-1', name: 'orders' })).handlers,
    ...backupServer({ backups: [] }).handlers,
    http.post('/instances/validate-name', async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      return HttpResponse.json(name === 'orders' ? { valid: false, reason: 'An instance named orders already exists.' } : { valid: true });
    }),
  );
  const user = userEvent.setup();
  const app = renderApp('/instances/i-1/backups/database');
  const region = within(await screen.findByRole('region', { name: 'Point-in-time recovery' }, firstRender));
  await user.click(await region.findByRole('button', { name: 'Restore to a point in time…' }));
  const form = within(await screen.findByRole('dialog', { name: 'Restore to a point in time' }));
  return { ...app, pitr, user, form, moment: form.getByLabelText('Moment to restore to') };
}

/** What a browser's date-time picker does to the field: user-event cannot type into one. */
const setMoment = (input: HTMLElement, value: string) => fireEvent.change(input, { target: { value } });

describe('Restore to a point in time', () => {
  it('shows the moment typed in the person’s zone and in UTC, and refuses one outside the window, saying the window', async () => {
    const { user, form, moment, pitr } = await openRestore();
    expect(moment).toHaveFocus();
    expect(moment).toHaveAttribute('type', 'datetime-local');
    expect(moment).toHaveAttribute('step', '1');

    setMoment(moment, '2026-11-26T11:42:05');
    expect(form.getByText('11/26/26 11:42:05 Europe/Berlin = 11/26/26 10:42:05 UTC')).toBeInTheDocument();
    expect(moment).not.toHaveAttribute('aria-invalid');
    expect(moment).toHaveAccessibleDescription('11/26/26 11:42:05 Europe/Berlin = 11/26/26 10:42:05 UTC');

    setMoment(moment, '2026-11-26T10:59:59');
    expect(
      form.getByText('11/26/26 10:59:59 is outside the recoverable window 11/26/26 11:00:00 – 11/26/26 13:00:00 (Europe/Berlin).'),
    ).toBeInTheDocument();
    expect(moment).toHaveAttribute('aria-invalid', 'true');
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-before');
    expect(form.getByRole('button', { name: 'Restore' })).toBeDisabled();
    await act(() => new Promise((resolve) => setTimeout(resolve, 600)));
    // No plan is asked for a moment the window does not hold, and nothing is restored.
    expect(pitr.dryRuns).toEqual([]);
    expect(pitr.calls).toEqual([]);
  });

  it('says when a moment falls in a gap of the window', async () => {
    const withGap = { ...fixedWindow, gaps: [{ from: '2026-11-26T10:20:00Z', to: '2026-11-26T10:25:00Z', reason: 'WAL segment 0000000100000000000000C0 is missing.' }] };
    const { form, moment } = await openRestore({ window: withGap });
    setMoment(moment, '2026-11-26T11:22:00');
    expect(await form.findByText(/^11\/26\/26 11:22:00 falls in a gap of the window \(.*\): WAL segment 0000000100000000000000C0 is missing\.$/)).toBeInTheDocument();
    expect(form.getByRole('button', { name: 'Restore' })).toBeDisabled();
  });

  it('fills the target from the quick picks: the latest, a restore point, five minutes ago', async () => {
    const live = aRecoveryWindow({ restorePoints: [{ name: 'before-migration', at: ago(20 * 60_000), lsn: '0/7000090', createdBy: null }] });
    const { user, form, moment, pitr } = await openRestore({ window: live });
    const picks = within(form.getByRole('group', { name: 'Quick picks' }));
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-before');

    await user.click(picks.getByRole('button', { name: 'Latest' }));
    expect(picks.getByRole('button', { name: 'Latest' })).toHaveAttribute('aria-pressed', 'true');
    expect(form.getByText(/^The latest moment archived when the restore starts; now /)).toBeInTheDocument();
    await waitFor(() => expect(pitr.dryRuns.at(-1)).toEqual({ target: 'latest', name: 'orders-before', dryRun: true }));

    await user.click(picks.getByRole('button', { name: 'Before restore point before-migration' }));
    expect(picks.getByRole('button', { name: 'Latest' })).toHaveAttribute('aria-pressed', 'false');
    expect(picks.getByRole('button', { name: 'Before restore point before-migration' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(pitr.dryRuns.at(-1)).toEqual({ target: { name: 'before-migration' }, name: 'orders-before', dryRun: true }));

    await user.click(picks.getByRole('button', { name: '5 minutes ago' }));
    await waitFor(() => expect(pitr.dryRuns.at(-1)?.target).toEqual({ time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/) }));
    const { time } = pitr.dryRuns.at(-1)!.target as { time: string };
    expect(Math.abs(Date.parse(time) - (Date.now() - 5 * 60_000))).toBeLessThan(10_000);
    expect(moment).not.toHaveValue('');
    expect(moment).toHaveAccessibleDescription(/^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d Europe\/Berlin = .* UTC$/);
  });

  it('shows the plan of a dry run once the target settles, then restores with the time and its offset and opens the new instance', async () => {
    const { user, form, moment, pitr, location } = await openRestore();
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-before');
    setMoment(moment, '2026-11-26T11:42');
    setMoment(moment, '2026-11-26T11:42:05');

    const plan = within(await form.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('Full backup 20261126-095500F, restorable from 11/26/26 11:00:00')).toBeInTheDocument();
    expect(plan.getByText('11/26/26 11:42:05 Europe/Berlin = 11/26/26 10:42:05 UTC')).toBeInTheDocument();
    expect(plan.getByText('7 segments, 117 MB')).toBeInTheDocument();
    // No drill has run: the pace is that of the last restore from orders.
    expect(plan.getByText('About 1 min 35 s, from the last restore of this instance')).toBeInTheDocument();
    // Asked once the target stayed put, not for every change.
    expect(pitr.dryRuns).toEqual([{ target: { time: '2026-11-26T10:42:05Z' }, name: 'orders-before', dryRun: true }]);

    await user.click(form.getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(location()).toBe('/instances/i-new'));
    expect(pitr.bodies).toEqual([{ target: { time: '2026-11-26T10:42:05Z' }, name: 'orders-before' }]);
    expect(await screen.findByRole('heading', { level: 1, name: 'orders-before' })).toBeInTheDocument();
  });

  it('restores into a cluster of the size chosen', async () => {
    const { user, form, moment, pitr, location } = await openRestore();
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-ha');
    setMoment(moment, '2026-11-26T11:42:05');
    await pickOption(user, form.getByRole('combobox', { name: 'Members' }), '2 members: a leader and a standby');
    expect(form.getByText(/A cluster on Patroni: the first member takes the restored data/)).toBeInTheDocument();
    expect(await form.findByRole('region', { name: 'Plan' })).toBeInTheDocument();
    await waitFor(() => expect(form.getByRole('button', { name: 'Restore' })).toBeEnabled());
    await user.click(form.getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(location()).toBe('/instances/i-new'));
    expect(pitr.bodies).toEqual([{ target: { time: '2026-11-26T10:42:05Z' }, name: 'orders-ha', members: 2 }]);
  });

  it('says the expected duration comes from the last restore drill', async () => {
    const drilled = { ...fixedWindow, lastDrill: aRecoveryCheck({ at: '2026-11-26T11:50:00Z', recoverySeconds: 10 }) };
    const { form, moment } = await openRestore({ window: drilled, plan: (request) => aPlan(drilled, request, { estimatedSeconds: 12.3 }) });
    setMoment(moment, '2026-11-26T11:42:05');
    const plan = within(await form.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('About 12 s, from the last drill')).toBeInTheDocument();
  });

  it('says when no drill has given a pace to estimate from: none ran yet, or none went well', async () => {
    const failed = { ...fixedWindow, lastDrill: aRecoveryCheck({ ok: false, recoverySeconds: null, detail: 'The drill failed: no space left on device' }) };
    const { form, moment } = await openRestore({ window: failed, plan: (request) => aPlan(failed, request, { estimatedSeconds: null }) });
    setMoment(moment, '2026-11-26T11:42:05');
    const plan = within(await form.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('No estimate: no restore drill has given a pace yet')).toBeInTheDocument();
  });

  it('says when no restore drill has run yet to estimate the time', async () => {
    const { form, moment } = await openRestore({ plan: (request) => aPlan(fixedWindow, request, { estimatedSeconds: null }) });
    setMoment(moment, '2026-11-26T11:42:05');
    const plan = within(await form.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('No drill yet: no estimate before the first restore drill')).toBeInTheDocument();
  });

  it('shows the server’s refusal of the target in the dialog, once and without a toast', async () => {
    const refusal = '2026-11-26T10:42:05Z is outside the recoverable window 2026-11-26T10:30:00Z – 2026-11-26T12:00:00Z';
    const { user, form, moment, store, pitr } = await openRestore({ restore: () => problem(400, 'Bad Request', refusal) });
    setMoment(moment, '2026-11-26T11:42:05');
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-before');
    await within(await form.findByRole('region', { name: 'Plan' })).findByText('7 segments, 117 MB');

    await user.click(form.getByRole('button', { name: 'Restore' }));
    expect(await form.findByText(refusal)).toBeInTheDocument();
    expect(screen.getAllByText(refusal)).toHaveLength(1);
    expect(store.getState().ui.toasts).toEqual([]);
    expect(pitr.calls).toEqual(['POST restore-point']);
    // A new target is the person's next try: the refusal was about the old one.
    setMoment(moment, '2026-11-26T11:50:00');
    expect(form.queryByText(refusal)).not.toBeInTheDocument();
  });

  it('shows the plan’s refusal when the window has moved on since it was read', async () => {
    const moved = 'The window now starts at 2026-11-26T11:00:00Z: 2026-11-26T10:42:05Z is outside the recoverable window.';
    const { form, moment, store } = await openRestore({ plan: () => problem(400, 'Bad Request', moved) });
    setMoment(moment, '2026-11-26T11:42:05');
    expect(await within(await form.findByRole('region', { name: 'Plan' })).findByText(moved)).toBeInTheDocument();
    expect(form.getByRole('button', { name: 'Restore' })).toBeDisabled();
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('shows a name the server refuses beside the name field', async () => {
    const { user, form, moment, store } = await openRestore({
      restore: () => validationProblem({ name: ['An instance named orders-before was created meanwhile.'] }),
    });
    setMoment(moment, '2026-11-26T11:42:05');
    await user.type(form.getByRole('textbox', { name: 'New instance name' }), 'orders-before');
    await within(await form.findByRole('region', { name: 'Plan' })).findByText('7 segments, 117 MB');
    await user.click(form.getByRole('button', { name: 'Restore' }));
    expect(await form.findByText('An instance named orders-before was created meanwhile.')).toBeInTheDocument();
    expect(form.getByRole('textbox', { name: 'New instance name' })).toHaveAttribute('aria-invalid', 'true');
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('is used by keyboard: the moment has focus first, the picks answer Enter and Space, Escape closes', async () => {
    // The focus trap's Tab needs a layout jsdom does not have; the end-to-end suite tabs through dialogs in Chromium.
    const { user, form, moment } = await openRestore();
    expect(moment).toHaveFocus();
    const latest = form.getByRole('button', { name: 'Latest' });
    latest.focus();
    await user.keyboard('{Enter}');
    expect(latest).toHaveAttribute('aria-pressed', 'true');
    const point = form.getByRole('button', { name: 'Before restore point before-migration' });
    point.focus();
    await user.keyboard(' ');
    expect(point).toHaveAttribute('aria-pressed', 'true');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});
