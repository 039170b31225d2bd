import type { UnknownAction } from '@reduxjs/toolkit';
import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import createSagaMiddleware from 'redux-saga';
import { legacy_configureStore as configureMockStore } from 'redux-mock-store';
import type { Backup } from '../../../contracts/backups';
import { setupStore } from '../../../src/app/store';
import { backupsApi, type AllBackupsArgs, type InstanceBackupsArgs } from '../../../src/features/backups/backupsApi';
import { backupDeletionRequested, backupsSaga } from '../../../src/features/backups/backupsSaga';
import { hubEvent } from '../../../src/features/realtime/realtimeSlice';
import { closeModal, openModal } from '../../../src/features/ui/uiSlice';
import { aBackup, allBackupsPageOf, aRunningBackup, aSummary } from '../handlers/backupsHandlers';
import { pageOf } from '../handlers/pages';
import { problem, setupMsw } from '../msw';

const server = setupMsw();

const running = aRunningBackup({ id: 'b-run', startedAt: '2025-02-04T03:00:00.000Z' });
const done = aBackup({ id: 'b-1', startedAt: '2025-02-03T03:00:00.000Z' });
const elsewhere = aBackup({ id: 'b-9', instanceId: 'i-2', instanceName: 'audit', startedAt: '2025-02-02T03:00:00.000Z' });

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** A real store holding i-1's summary, a page of its database backups and a page of all backups, with every GET counted. */
async function storeWithCaches() {
  const gets: string[] = [];
  server.use(
    http.get('/instances/:id/backups', ({ params }) => {
      gets.push(`summary ${params.id}`);
      return HttpResponse.json(aSummary([running, done]));
    }),
    http.get('/instances/:id/backups/database', () => {
      gets.push('instance list');
      return HttpResponse.json(pageOf([running, done]));
    }),
    http.get('/backups', () => {
      gets.push('all');
      return HttpResponse.json(allBackupsPageOf([running, done, elsewhere]));
    }),
  );
  const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
  const listArgs: InstanceBackupsArgs = { instanceId: 'i-1', kind: 'database', page: 1, pageSize: 25 };
  const allArgs: AllBackupsArgs = { page: 1, pageSize: 25 };
  store.dispatch(backupsApi.endpoints.backupsSummary.initiate('i-1'));
  store.dispatch(backupsApi.endpoints.instanceBackups.initiate(listArgs));
  store.dispatch(backupsApi.endpoints.allBackups.initiate(allArgs));
  await waitFor(() => expect(gets).toHaveLength(3));
  const cached = {
    summary: () => backupsApi.endpoints.backupsSummary.select('i-1')(store.getState()).data,
    list: () => backupsApi.endpoints.instanceBackups.select(listArgs)(store.getState()).data,
    all: () => backupsApi.endpoints.allBackups.select(allArgs)(store.getState()).data,
  };
  const find = (page: { items: Backup[] } | undefined, id: string) => page?.items.find((backup) => backup.id === id);
  return { store, gets, cached, find };
}

describe('backupsSaga: hub events', () => {
  it('moves the progress of a running backup wherever it is shown, without asking the server', async () => {
    const { store, gets, cached, find } = await storeWithCaches();
    store.dispatch(hubEvent('BackupProgress', { backupId: 'b-run', instanceId: 'i-1', bytes: 4096, percent: 12.5, step: 'dumping shop' }, 't'));

    const progress = { bytes: 4096, percent: 12.5, step: 'dumping shop' };
    expect(cached.summary()?.database.running?.progress).toEqual(progress);
    expect(find(cached.list(), 'b-run')?.progress).toEqual(progress);
    expect(find(cached.all(), 'b-run')?.progress).toEqual(progress);
    await settle();
    expect(gets).toHaveLength(3);
  });

  it('lets a late progress event leave a finished backup alone', async () => {
    const { store, cached, find } = await storeWithCaches();
    store.dispatch(hubEvent('BackupProgress', { backupId: 'b-1', instanceId: 'i-1', bytes: 1, percent: 1, step: 'late' }, 't'));
    expect(find(cached.list(), 'b-1')?.progress).toBeNull();
  });

  it('puts a finished backup in place at once, ends the running one, recounts the figures and says so', async () => {
    const { store, gets, cached, find } = await storeWithCaches();
    const finished = aBackup({ ...running, status: 'succeeded', progress: null, sizeBytes: 3_000_000, sha256: 'ab'.repeat(32) });
    store.dispatch(hubEvent('BackupCompleted', { backup: finished }, 't'));

    expect(find(cached.list(), 'b-run')).toEqual(finished);
    expect(find(cached.all(), 'b-run')).toEqual(finished);
    // The progress bar goes before the summary is read again.
    expect(cached.summary()?.database.running).toBeNull();
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'success', summary: 'Backup finished', detail: 'orders, 3.0 MB' })]);
    // The figures are the server's to count; the instance's list already shows the backup.
    await waitFor(() => expect(gets.slice(3).sort()).toEqual(['all', 'summary i-1']));
    await settle();
    expect(gets).toHaveLength(5);
  });

  it('says a failed backup with its error', async () => {
    const { store } = await storeWithCaches();
    store.dispatch(hubEvent('BackupCompleted', { backup: aBackup({ ...running, status: 'failed', progress: null, error: 'pg_dump: out of memory' }) }, 't'));
    expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ status: 'error', summary: 'Backup failed', detail: 'pg_dump: out of memory' })]);
  });

  it('reads the instance’s lists again when a backup appears that no cached page holds', async () => {
    const { store, gets } = await storeWithCaches();
    store.dispatch(hubEvent('BackupUpdated', { backup: aRunningBackup({ id: 'b-new', trigger: 'schedule' }) }, 't'));
    await waitFor(() => expect(gets.slice(3).sort()).toEqual(['all', 'instance list', 'summary i-1']));
    expect(store.getState().ui.toasts).toEqual([]);
  });

  it('takes a deleted backup off every page at once, then reads the pages that showed it again', async () => {
    const { store, gets, cached, find } = await storeWithCaches();
    store.dispatch(hubEvent('BackupDeleted', { id: 'b-1', instanceId: 'i-1' }, 't'));

    expect(find(cached.list(), 'b-1')).toBeUndefined();
    expect(cached.list()?.total).toBe(1);
    expect(find(cached.all(), 'b-1')).toBeUndefined();
    expect(cached.all()?.total).toBe(2);
    await waitFor(() => expect(gets.slice(3).sort()).toEqual(['all', 'instance list', 'summary i-1']));
  });
});

describe('backupsSaga: deleting', () => {
  it('asks first and does nothing on a no', () => {
    const sagaMiddleware = createSagaMiddleware();
    const store = configureMockStore<object>([sagaMiddleware])({});
    sagaMiddleware.run(backupsSaga);

    const request = backupDeletionRequested({ backup: done });
    store.dispatch(request);
    expect((store.getActions() as UnknownAction[])[1]).toMatchObject({
      type: openModal.type,
      payload: { title: 'Delete this backup?', component: 'confirm', props: { confirmLabel: 'Delete', destructive: true } },
    });
    store.dispatch(closeModal(false));
    expect((store.getActions() as UnknownAction[]).map((action) => action.type)).toEqual([request.type, openModal.type, closeModal.type]);
  });

  it('does not ask again when the server refuses for another reason than the last good backup', async () => {
    const deletes: string[] = [];
    server.use(
      http.delete('/instances/:id/backups/database/:backupId', ({ request }) => {
        deletes.push(request.url);
        return problem(500, 'Internal Server Error', 'storage unreachable');
      }),
    );
    const store = setupStore(undefined, { navigate: jest.fn(), getLocation: () => window.location });
    store.dispatch(backupDeletionRequested({ backup: done }));
    await waitFor(() => expect(store.getState().ui.modal?.title).toBe('Delete this backup?'));
    store.dispatch(closeModal(true));
    await waitFor(() => expect(store.getState().ui.toasts).toEqual([expect.objectContaining({ summary: 'Request failed', detail: 'storage unreachable' })]));
    expect(store.getState().ui.modal).toBeNull();
    expect(deletes).toHaveLength(1);
  });
});
