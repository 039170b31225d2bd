import type { UnknownAction } from '@reduxjs/toolkit';
import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import type { Instance } from '../../../../contracts/instances';
import { setupStore } from '../../../../src/app/store';
import { instancesApi } from '../../../../src/features/instances/instancesApi';
import {
  bulkActionRequested,
  instanceActionRequested,
  instanceDeletionRequested,
  instancesSaga,
} from '../../../../src/features/instances/instancesSaga';
import { groupJoined, hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { closeModal, openModal } from '../../../../src/features/ui/uiSlice';
import { anInstance, instanceServer } from '../../handlers/instancesHandlers';
import { pageOf } from '../../handlers/pages';
import { setupMsw } from '../../msw';

const server = setupMsw();

const orders = anInstance({ id: 'i-1', name: 'orders', status: 'running' });
const audit = anInstance({ id: 'i-2', name: 'audit', status: 'stopped' });
const events = anInstance({ id: 'i-3', name: 'events', status: 'running', type: 'etcd' });

/** The saga alone on a recording store: what it puts, in order (reducers do not run). */
function recordSaga() {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureMockStore<object>([sagaMiddleware])({});
  const navigate = jest.fn();
  sagaMiddleware.run(instancesSaga, { navigate });
  return { store, navigate, types: () => (store.getActions() as UnknownAction[]).map((action) => action.type) };
}

function realStore() {
  const navigate = jest.fn();
  const store = setupStore(undefined, { navigate, getLocation: () => window.location });
  return { store, navigate };
}

const openedModal = (store: ReturnType<typeof realStore>['store']) => store.getState().ui.modal;

/** The answer to the question the saga is waiting on, once it is on screen. */
async function answer(store: ReturnType<typeof realStore>['store'], title: string, result: boolean) {
  await waitFor(() => expect(openedModal(store)?.title).toBe(title));
  store.dispatch(closeModal(result));
}

describe('instancesSaga: confirm, then act', () => {
  it.each([
    ['stop', 'Stop orders?'],
    ['restart', 'Restart orders?'],
  ] as const)('asks before %s and does nothing on a no', (action, title) => {
    const { store, types } = recordSaga();
    store.dispatch(instanceActionRequested({ instance: orders, action }));
    expect((store.getActions() as UnknownAction[])[1]).toMatchObject({ type: openModal.type, payload: { title, component: 'confirm' } });
    store.dispatch(closeModal(false));
    expect(types()).toEqual([instanceActionRequested.type, openModal.type, closeModal.type]);
  });

  it('stops after a yes', async () => {
    const fake = instanceServer(orders);
    server.use(...fake.handlers);
    const { store } = realStore();
    store.dispatch(instanceActionRequested({ instance: orders, action: 'stop' }));
    await answer(store, 'Stop orders?', true);
    await waitFor(() => expect(fake.calls).toEqual(['POST stop']));
  });

  it('starts without asking', async () => {
    const fake = instanceServer(audit);
    server.use(...fake.handlers);
    const { store } = realStore();
    store.dispatch(instanceActionRequested({ instance: audit, action: 'start' }));
    await waitFor(() => expect(fake.calls).toEqual(['POST start']));
    expect(openedModal(store)).toBeNull();
  });

  it('deletes a running instance with force after "Stop and delete", then goes to the list', async () => {
    const fake = instanceServer(orders);
    server.use(...fake.handlers);
    const { store, navigate } = realStore();
    store.dispatch(instanceDeletionRequested({ instance: orders }));
    await waitFor(() => expect(openedModal(store)?.props).toEqual({ confirmLabel: 'Stop and delete', destructive: true }));
    await answer(store, 'Delete orders?', true);
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/instances'));
    expect(fake.calls).toEqual(['DELETE force']);
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ status: 'success', summary: 'Instance deleted', detail: 'Its 2 backups are kept for 30 days.' }),
    ]);
  });

  it('asks again when an instance thought stopped turns out to be running', async () => {
    const fake = instanceServer({ ...audit, status: 'running' });
    server.use(...fake.handlers);
    const { store, navigate } = realStore();
    store.dispatch(instanceDeletionRequested({ instance: audit }));
    await answer(store, 'Delete audit?', true);
    await answer(store, 'audit is running', true);
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/instances'));
    expect(fake.calls).toEqual(['DELETE', 'DELETE force']);
  });

  it('keeps the instance when the second question is answered no', async () => {
    const fake = instanceServer({ ...audit, status: 'running' });
    server.use(...fake.handlers);
    const { store, navigate } = realStore();
    store.dispatch(instanceDeletionRequested({ instance: audit }));
    await answer(store, 'Delete audit?', true);
    await answer(store, 'audit is running', false);
    expect(fake.calls).toEqual(['DELETE']);
    expect(navigate).not.toHaveBeenCalled();
  });

  it('names how many instances a bulk stop touches, and stops only those that run', async () => {
    const stopped: string[] = [];
    server.use(
      http.post('/instances/:id/stop', ({ params }) => {
        stopped.push(String(params.id));
        return HttpResponse.json(anInstance({ id: String(params.id) }), { status: 202 });
      }),
    );
    const { store } = realStore();
    store.dispatch(bulkActionRequested({ instances: [orders, audit, events], action: 'stop' }));
    await waitFor(() =>
      expect(openedModal(store)).toMatchObject({
        title: 'Stop 2 instances?',
        description: 'orders, events (1 instance left as it is).',
        props: { confirmLabel: 'Stop 2 instances', destructive: true },
      }),
    );
    store.dispatch(closeModal(true));
    await waitFor(() => expect(stopped.sort()).toEqual(['i-1', 'i-3']));
  });

  it('restarts the selected running instances after a question listing them, and sums up the outcome in a toast', async () => {
    const restarted: string[] = [];
    server.use(
      http.post('/instances/:id/restart', ({ params }) => {
        restarted.push(String(params.id));
        return HttpResponse.json(anInstance({ id: String(params.id) }), { status: 202 });
      }),
    );
    const { store } = realStore();
    store.dispatch(bulkActionRequested({ instances: [orders, audit, events], action: 'restart' }));
    await waitFor(() =>
      expect(openedModal(store)).toMatchObject({
        title: 'Restart 2 instances?',
        description: 'orders, events (1 instance left as it is). Their clients are disconnected for as long as the restart takes.',
      }),
    );
    store.dispatch(closeModal(true));
    await waitFor(() => expect(store.getState().ui.toasts.map((toast) => toast.summary)).toContain('2 instances asked to restart'));
    expect(restarted.sort()).toEqual(['i-1', 'i-3']);
  });

  it('deletes every selected instance with force, and names the ones the server refused', async () => {
    server.use(
      http.delete('/instances/:id', ({ params }) =>
        params.id === 'i-2'
          ? HttpResponse.json({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'An operation is running.' }, { status: 409 })
          : new HttpResponse(null, { status: 202 }),
      ),
    );
    const { store } = realStore();
    store.dispatch(bulkActionRequested({ instances: [orders, audit], action: 'delete' }));
    await waitFor(() =>
      expect(openedModal(store)).toMatchObject({
        title: 'Delete 2 instances?',
        description: 'orders, audit. Running ones are stopped first; their data directories are removed. This cannot be undone.',
        props: { destructive: true },
      }),
    );
    store.dispatch(closeModal(true));
    await waitFor(() =>
      expect(store.getState().ui.toasts.map(({ status, summary, detail }) => ({ status, summary, detail }))).toContainEqual({
        status: 'warning',
        summary: '1 instance deleted',
        detail: 'Refused: audit.',
      }),
    );
  });

  it('backs up only the selected instances that run', async () => {
    const backedUp: string[] = [];
    server.use(
      http.post('/instances/:id/backups/database/backup', ({ params }) => {
        backedUp.push(String(params.id));
        return HttpResponse.json({}, { status: 202 });
      }),
    );
    const { store } = realStore();
    store.dispatch(bulkActionRequested({ instances: [orders, audit], action: 'backup' }));
    await answer(store, 'Back up 1 instance?', true);
    await waitFor(() => expect(store.getState().ui.toasts.map((toast) => toast.summary)).toContain('1 instance backing up'));
    expect(backedUp).toEqual(['i-1']);
  });

  it('asks nothing when no selected instance can take the bulk action', () => {
    const { store, types } = recordSaga();
    store.dispatch(bulkActionRequested({ instances: [orders], action: 'start' }));
    expect(types()).toEqual([bulkActionRequested.type, 'ui/pushToast']);
  });
});

describe('instancesSaga: hub events', () => {
  /** A real store holding page 1 of the list and instance i-1, with every GET counted. */
  async function storeWithCaches() {
    const gets: string[] = [];
    server.use(
      http.get('/instances', () => {
        gets.push('list');
        return HttpResponse.json(pageOf([orders, audit]));
      }),
      http.get('/instances/:id', ({ params }) => {
        gets.push(`instance ${params.id}`);
        return HttpResponse.json(orders);
      }),
    );
    const { store } = realStore();
    const listArgs = { page: 1, pageSize: 25 };
    const sortedArgs = { page: 1, pageSize: 25, sort: '-name' };
    store.dispatch(instancesApi.endpoints.instances.initiate(listArgs));
    store.dispatch(instancesApi.endpoints.instances.initiate(sortedArgs));
    store.dispatch(instancesApi.endpoints.instance.initiate('i-1'));
    await waitFor(() => expect(gets).toHaveLength(3));
    const cached = {
      list: (args = listArgs) => instancesApi.endpoints.instances.select(args)(store.getState()).data?.items,
      sorted: () => cached.list(sortedArgs),
      instance: () => instancesApi.endpoints.instance.select('i-1')(store.getState()).data,
    };
    return { store, gets, cached };
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('patches a status change into the instance and every cached list page, without asking the server', async () => {
    const { store, gets, cached } = await storeWithCaches();
    const health = { level: 'error' as const, checks: [{ name: 'accepts connections', level: 'error' as const, message: 'no answer' }] };
    store.dispatch(
      hubEvent('InstanceStatusChanged', { id: 'i-1', status: 'offline', previousStatus: 'running', statusReason: 'The process exited.', health, version: 2 }, 't'),
    );

    expect(cached.instance()).toMatchObject({ status: 'offline', statusReason: 'The process exited.', health });
    expect(cached.list()?.map((instance) => instance.status)).toEqual(['offline', 'stopped']);
    expect(cached.sorted()?.[0]).toMatchObject({ id: 'i-1', status: 'offline', health });
    await settle();
    expect(gets).toHaveLength(3);
  });

  it('keeps the newer copy when an older one arrives late (a 202 answer after the events of a fast operation)', async () => {
    const { store, cached } = await storeWithCaches();
    const health = { level: 'good' as const, checks: [] };
    store.dispatch(hubEvent('InstanceStatusChanged', { id: 'i-1', status: 'stopped', previousStatus: 'running', statusReason: null, health, version: 5 }, 't'));
    store.dispatch(hubEvent('InstanceUpdated', { instance: { ...orders, status: 'running', operation: { kind: 'stop', startedAt: 't' }, version: 4 } }, 't'));
    expect(cached.instance()).toMatchObject({ status: 'stopped', operation: null, version: 5 });
    expect(cached.list()?.[0]).toMatchObject({ status: 'stopped', version: 5 });
  });

  it('replaces the cached instance with the one InstanceUpdated carries', async () => {
    const { store, gets, cached } = await storeWithCaches();
    const updated: Instance = { ...orders, description: 'Moved to billing', groupId: 'g-2', groupName: 'billing' };
    store.dispatch(hubEvent('InstanceUpdated', { instance: updated }, 't'));
    expect(cached.instance()).toEqual(updated);
    expect(cached.list()?.[0]).toEqual(updated);
    await settle();
    expect(gets).toHaveLength(3);
  });

  it.each(['InstanceCreated', 'InstanceDeleted'] as const)('refetches the list pages on %s, not the instance', async (name) => {
    const { store, gets } = await storeWithCaches();
    store.dispatch(hubEvent(name, name === 'InstanceCreated' ? { instance: events } : { id: 'i-2' }, 't'));
    await waitFor(() => expect(gets).toHaveLength(5));
    expect(gets.slice(3)).toEqual(['list', 'list']);
  });

  it('ends the operation and tells whoever looks at the instance how it went', async () => {
    const { store, cached } = await storeWithCaches();
    store.dispatch(hubEvent('InstanceUpdated', { instance: { ...orders, operation: { kind: 'restart', startedAt: 't' } } }, 't'));
    store.dispatch(groupJoined({ name: 'Instance', args: ['i-1'] }));

    store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-1', kind: 'restart', ok: false, error: 'pg_ctl: server did not start in time', detail: null }, 't'));

    expect(cached.instance()?.operation).toBeNull();
    expect(cached.list()?.[0].operation).toBeNull();
    expect(store.getState().ui.toasts).toEqual([
      expect.objectContaining({ status: 'error', summary: 'orders: restart failed', detail: 'pg_ctl: server did not start in time' }),
    ]);
  });

  it('says a finished operation from the list too, but not for instances out of sight', async () => {
    const { store } = await storeWithCaches();
    store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-2', kind: 'start', ok: true, error: null, detail: null }, 't'));
    expect(store.getState().ui.toasts).toEqual([]);

    store.dispatch(groupJoined({ name: 'Instances', args: [] }));
    store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-2', kind: 'start', ok: true, error: null, detail: null }, 't'));
    store.dispatch(hubEvent('OperationCompleted', { instanceId: 'i-9', kind: 'start', ok: true, error: null, detail: null }, 't'));
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'success', summary: 'audit started' })]);
  });
});
