import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { InstanceEventPayload, OperationCompletedPayload } from '../../../../contracts/instances';
import { updatesApi } from '../../../../src/features/instances/updatesApi';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { admin } from '../../fixtures';
import { meHandler } from '../../handlers/authHandlers';
import { anInstance } from '../../handlers/instancesHandlers';
import { anUpdatable, updatesServer } from '../../handlers/updatesHandlers';
import { problem, setupMsw } from '../../msw';
import { renderApp } from '../../renderApp';
import { deferred } from '../realtime/fakeHub';

const server = setupMsw();
// The screen is a lazy route: load its code once, before the tests time their steps.
beforeAll(() => import('../../../../src/features/instances/InstancesUpdatePage'), 30_000);

const alpha = anUpdatable('i-a', 'alpha');
const beta = anUpdatable('i-b', 'beta', '16.2');
const gamma = anUpdatable('i-c', 'gamma', '3.5.12', '3.5.16');
gamma.instance.type = 'etcd';

function openUpdates(...args: Parameters<typeof updatesServer>) {
  const fake = updatesServer(...args);
  server.use(meHandler(admin), ...fake.handlers);
  const user = userEvent.setup();
  return { ...renderApp('/instances-update'), fake, user };
}

/** Each row as name | type | engine | progress. */
async function rows() {
  const table = await screen.findByRole('table', { name: 'Updatable instances' });
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell').slice(1).map((cell) => cell.textContent).join(' | '));
}

const completed = (payload: Omit<OperationCompletedPayload, 'kind' | 'detail'>) =>
  hubEvent('OperationCompleted', { kind: 'update', detail: null, ...payload } satisfies OperationCompletedPayload, 't');

describe('InstancesUpdatePage', () => {
  it('lists the instances on an older engine and joins the list’s hub group', async () => {
    const { store } = openUpdates([alpha, beta, gamma]);
    expect(await rows()).toEqual([
      'alpha | PostgreSQL | 16.4 → 16.6 | Not started',
      'beta | PostgreSQL | 16.2 → 16.6 | Not started',
      'gamma | etcd | 3.5.12 → 3.5.16 | Not started',
    ]);
    expect(screen.getByRole('button', { name: 'Update selected' })).toBeDisabled();
    expect(Object.keys(store.getState().realtime.joined)).toEqual(['Instances()']);
  });

  it('says so when every instance runs the newest engine', async () => {
    openUpdates([]);
    expect(await screen.findByText('Every instance runs the newest installed engine.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Update selected/ })).not.toBeInTheDocument();
  });

  it('updates the selected instances after a confirmation and follows each to done or failed', async () => {
    const betaAnswer = deferred<undefined>();
    const { user, fake, store } = openUpdates([alpha, beta, gamma], (id) => (id === 'i-b' ? betaAnswer.promise : undefined));
    await rows();
    await user.click(screen.getByRole('checkbox', { name: 'Select alpha' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select beta' }));
    await user.click(screen.getByRole('button', { name: 'Update selected (2)' }));

    const dialog = await screen.findByRole('dialog', { name: 'Update 2 instances?' });
    expect(within(dialog).getByText(/^alpha, beta: each restarts on the newest installed engine/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Update and restart' }));

    // alpha is accepted; beta waits for its answer.
    await waitFor(async () => expect((await rows()).slice(0, 2)).toEqual(['alpha | PostgreSQL | 16.4 → 16.6 | Updating', 'beta | PostgreSQL | 16.2 → 16.6 | Queued']));
    // Running rows cannot be picked again.
    expect(screen.queryByRole('checkbox', { name: 'Select alpha' })).not.toBeInTheDocument();

    // The hub says beta's update has started before its answer arrives.
    const updating: InstanceEventPayload = { instance: { ...beta.instance, operation: { kind: 'update', startedAt: 't' } } };
    act(() => {
      store.dispatch(hubEvent('InstanceUpdated', updating, 't'));
    });
    await waitFor(async () => expect((await rows())[1]).toBe('beta | PostgreSQL | 16.2 → 16.6 | Updating'));
    betaAnswer.resolve(undefined);
    await waitFor(() => expect(fake.calls).toEqual(['POST update i-a', 'POST update i-b']));

    // alpha is done and leaves the server's list; its row stays with the outcome.
    fake.state.updatable = [beta, gamma];
    act(() => {
      store.dispatch(completed({ instanceId: 'i-a', ok: true, error: null }));
      store.dispatch(completed({ instanceId: 'i-b', ok: false, error: 'pg_upgrade: the old cluster was not shut down cleanly' }));
    });
    await waitFor(async () =>
      expect(await rows()).toEqual([
        'beta | PostgreSQL | 16.2 → 16.6 | Failedpg_upgrade: the old cluster was not shut down cleanly',
        'gamma | etcd | 3.5.12 → 3.5.16 | Not started',
        'alpha | PostgreSQL | 16.4 → 16.6 | Updated to 16.6',
      ]),
    );
    // A failed one can be tried again; finished rows go when cleared.
    expect(screen.getByRole('checkbox', { name: 'Select beta' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear finished' }));
    expect(await rows()).toEqual(['beta | PostgreSQL | 16.2 → 16.6 | Not started', 'gamma | etcd | 3.5.12 → 3.5.16 | Not started']);
  });

  it('marks an update the server refuses as failed, with its reason', async () => {
    const { user, fake } = openUpdates([alpha, gamma], (id) =>
      id === 'i-c' ? problem(409, 'Conflict', 'gamma is being backed up; try again when it is done.') : undefined,
    );
    await rows();
    await user.click(screen.getByRole('checkbox', { name: 'Select all' }));
    await user.click(screen.getByRole('button', { name: 'Update selected (2)' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Update 2 instances?' })).getByRole('button', { name: 'Update and restart' }));

    await waitFor(async () =>
      expect(await rows()).toEqual([
        'alpha | PostgreSQL | 16.4 → 16.6 | Updating',
        'gamma | etcd | 3.5.12 → 3.5.16 | Failedgamma is being backed up; try again when it is done.',
      ]),
    );
    expect(fake.calls).toEqual(['POST update i-a', 'POST update i-c']);
  });

  it('updates nothing when the confirmation is refused, and keeps the choice', async () => {
    const { user, fake } = openUpdates([alpha, beta]);
    await rows();
    await user.click(screen.getByRole('checkbox', { name: 'Select beta' }));
    await user.click(screen.getByRole('button', { name: 'Update selected (1)' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Update beta?' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(fake.calls).toEqual([]);
    expect(await rows()).toEqual(['alpha | PostgreSQL | 16.4 → 16.6 | Not started', 'beta | PostgreSQL | 16.2 → 16.6 | Not started']);
    expect(screen.getByRole('checkbox', { name: 'Select beta' })).toBeChecked();
  });

  it('counts an instance that left the list as updated when its event was missed', async () => {
    const { user, fake, store } = openUpdates([alpha, beta]);
    await rows();
    await user.click(screen.getByRole('checkbox', { name: 'Select alpha' }));
    await user.click(screen.getByRole('button', { name: 'Update selected (1)' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Update alpha?' })).getByRole('button', { name: 'Update and restart' }));
    await waitFor(async () => expect((await rows())[0]).toBe('alpha | PostgreSQL | 16.4 → 16.6 | Updating'));

    // The connection was down when it finished; coming back refetches what may have been missed.
    fake.state.updatable = [beta];
    act(() => {
      store.dispatch(updatesApi.util.invalidateTags(['Instance']));
    });
    await waitFor(async () =>
      expect(await rows()).toEqual(['beta | PostgreSQL | 16.2 → 16.6 | Not started', 'alpha | PostgreSQL | 16.4 → 16.6 | Updated to 16.6']),
    );
  });

  it('ignores events about other instances and other operations', async () => {
    const { user, store } = openUpdates([alpha]);
    await rows();
    await user.click(screen.getByRole('checkbox', { name: 'Select alpha' }));
    await user.click(screen.getByRole('button', { name: 'Update selected (1)' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Update alpha?' })).getByRole('button', { name: 'Update and restart' }));
    await waitFor(async () => expect((await rows())[0]).toBe('alpha | PostgreSQL | 16.4 → 16.6 | Updating'));

    act(() => {
      store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-a', kind: 'restart', ok: true, error: null, detail: null }, 't'));
      store.dispatch(completed({ instanceId: 'i-other', ok: true, error: null }));
      store.dispatch(hubEvent('InstanceUpdated', { instance: anInstance({ id: 'i-a', operation: null }) }, 't'));
    });
    expect((await rows())[0]).toBe('alpha | PostgreSQL | 16.4 → 16.6 | Updating');
    expect(store.getState().instancesUpdate['i-other']).toBeUndefined();
  });
});
