import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { aRevision, configServer } from '../../handlers/configHandlers';
import { aParameter, anInstance } from '../../handlers/instancesHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';

const server = setupMsw();
// The screen is a lazy route: load its code once, before the tests time their steps.
beforeAll(() => import('../../../../src/features/instances/EditConfigurationPage'), 30_000);

function openConfiguration(options: Parameters<typeof configServer>[0] = {}) {
  const fake = configServer(options);
  server.use(meHandler(admin), ...fake.handlers);
  const user = userEvent.setup();
  return { ...renderApp('/instances/i-1/configuration'), fake, user };
}

const cellsOf = (row: HTMLElement) => within(row).getAllByRole('cell').map((cell) => cell.textContent);

describe('EditConfigurationPage: revisions', () => {
  const revisions = [
    aRevision({
      revision: 2,
      author: 'ada@example.com',
      createdAt: '2025-03-04T05:06:07.000Z',
      changes: [{ name: 'work_mem', from: '4096', to: '8192' }],
      parameters: { work_mem: '8192', max_connections: '200' },
    }),
    aRevision({
      revision: 1,
      author: null,
      createdAt: '2025-03-01T05:06:07.000Z',
      changes: [{ name: 'max_connections', from: null, to: '200' }],
      parameters: { max_connections: '200' },
    }),
  ];

  it('lists who changed what, newest first, and restores an older revision after a confirmation', async () => {
    const { user, fake, store } = openConfiguration({ revisions });
    const table = await screen.findByRole('table', { name: 'Revisions' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => cellsOf(row).slice(0, 4).join(' | '))).toEqual([
      expect.stringMatching(/^2current \| 03\/04\/25 \d\d:\d\d \| ada@example.com \| work_mem: 4096 kB → 8192 kB$/),
      expect.stringMatching(/^1 \| 03\/01\/25 \d\d:\d\d \| Warden \| max_connections: default → 200$/),
    ]);
    expect(fake.calls).toContain('GET revisions page=1 pageSize=25');
    // The current revision is what runs: nothing to restore.
    expect(within(rows[0]).queryByRole('button', { name: /Restore/ })).not.toBeInTheDocument();

    await user.click(within(rows[1]).getByRole('button', { name: 'Restore revision 1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore revision 1 of orders?' });
    await user.click(within(dialog).getByRole('button', { name: 'Restore' }));

    await waitFor(() => expect(fake.calls).toContain('POST restore 1'));
    expect(fake.bodies).toEqual([{ apply: 'reload' }]);
    await waitFor(() => expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ summary: 'Revision 1 restored (revision 3)' })]));
    // The restore is the newest revision now.
    await waitFor(() => expect(cellsOf(within(screen.getByRole('table', { name: 'Revisions' })).getAllByRole('row')[1])[0]).toBe('3current'));
  });

  it('shows both sides of a change in the parameter’s unit, as the engine reported one and the person typed the other', async () => {
    openConfiguration({
      revisions: [aRevision({ revision: 1, changes: [{ name: 'work_mem', from: '4096', to: '16MB' }], parameters: { work_mem: '16MB' } })],
    });
    const table = await screen.findByRole('table', { name: 'Revisions' });
    expect(within(table).getByText('work_mem').closest('li')).toHaveTextContent('work_mem: 4096 kB → 16384 kB');
  });

  it('restores nothing when the confirmation is refused', async () => {
    const { user, fake } = openConfiguration({ revisions });
    await user.click(await screen.findByRole('button', { name: 'Restore revision 1' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Restore revision 1 of orders?' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fake.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
  });

  it('says when nothing was saved yet', async () => {
    openConfiguration();
    expect(await screen.findByText('No saved changes yet.')).toBeInTheDocument();
  });
});

describe('EditConfigurationPage: pending restart', () => {
  it('offers the restart that applies waiting changes, and drops the banner once it is done', async () => {
    const { user, fake, store } = openConfiguration({ pendingRestart: ['max_connections', 'shared_buffers'] });
    const banner = (await screen.findByText('2 saved changes wait for a restart')).closest('[role="status"]') as HTMLElement;
    expect(within(banner).getByText('max_connections, shared_buffers')).toBeInTheDocument();

    await user.click(within(banner).getByRole('button', { name: 'Restart now' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Restart orders?' })).getByRole('button', { name: 'Restart' }));
    await waitFor(() => expect(fake.calls).toContain('POST restart'));
    // The instance says it is restarting until the operation completes.
    await waitFor(() => expect(within(banner).getByRole('button', { name: /Restarting/ })).toBeDisabled());

    fake.state.config = { ...fake.state.config, pendingRestart: [] };
    fake.state.instance = { ...fake.state.instance, operation: null };
    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'restart', ok: true, error: null, detail: null }, 't'));
    });
    await waitFor(() => expect(screen.queryByText(/wait for a restart/)).not.toBeInTheDocument());
  });
});

describe('EditConfigurationPage: other states', () => {
  it('offers only a restart for etcd, whose flags never reload', async () => {
    const { user, fake } = openConfiguration({
      instance: anInstance({ name: 'locks', type: 'etcd', engineVersion: '3.5.16' }),
      parameters: [
        aParameter({ name: 'heartbeat-interval', value: '100', default: '100', type: 'integer', unit: 'ms', min: 1, max: 10000, apply: 'restart', description: '' }),
        aParameter({ name: 'election-timeout', value: '1000', default: '1000', type: 'integer', unit: 'ms', min: 1, max: 50000, apply: 'restart', description: '' }),
      ],
    });
    const input = await screen.findByLabelText('heartbeat-interval');
    expect(screen.getByText('etcd 3.5.16')).toBeInTheDocument();
    await user.clear(input);
    await user.type(input, '150');
    await user.click(screen.getByRole('button', { name: 'Review changes (1)' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Review changes' }));
    expect(dialog.getAllByRole('radio').map((radio) => radio.closest('label')?.textContent)).toEqual(['Save only', 'Save and restart']);
    expect(dialog.getByRole('radio', { name: 'Save and restart' })).toBeChecked();
    await user.click(dialog.getByRole('button', { name: 'Save and restart' }));
    await waitFor(() => expect(fake.bodies).toEqual([{ parameters: { 'heartbeat-interval': '150' }, apply: 'restart' }]));
  });

  it('says when the instance does not exist', async () => {
    server.use(
      meHandler(admin),
      http.get('/instances/:id', () => problem(404, 'Not Found')),
      http.get('/instances/:id/config', () => problem(404, 'Not Found')),
    );
    renderApp('/instances/i-gone/configuration');
    expect(await screen.findByText('Instance not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to instances' })).toHaveAttribute('href', '/instances');
  });

  it('offers a retry when the configuration cannot be read', async () => {
    const fake = configServer();
    let failures = 1;
    server.use(
      meHandler(admin),
      // Before the fake's own handler, which answers once this one passes.
      http.get('/instances/:id/config', () => (failures-- > 0 ? problem(503, 'Service Unavailable', 'The store is busy.') : undefined)),
      ...fake.handlers,
    );
    const user = userEvent.setup();
    const { store } = renderApp('/instances/i-1/configuration');
    await user.click(await screen.findByRole('button', { name: 'Retry' }));
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ summary: 'Request failed', detail: 'The store is busy.' })]);
    expect(await screen.findByLabelText('max_connections')).toBeInTheDocument();
  });
});
