import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupStore } from '../../../../src/app/store';
import { hubEvent } from '../../../../src/features/realtime/realtimeSlice';
import { scriptsApi, type ScriptRunsArgs } from '../../../../src/features/scripts/scriptsApi';
import { unsavedLeaveRequested } from '../../../../src/features/scripts/scriptsSaga';
import { closeModal } from '../../../../src/features/ui/uiSlice';
import { aPendingRun, aScriptRun, summaryOf } from '../../handlers/scriptsHandlers';
import { setupMsw } from '../../msw';

const server = setupMsw();
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

const running = aPendingRun({ id: 'r-2', status: 'running', phase: 'preparing', startedAt: '2025-02-04T03:00:00.000Z' });
const older = aScriptRun({ id: 'r-1' });
const listArgs: ScriptRunsArgs = { instanceId: 'i-1', page: 1, pageSize: 25 };

/** A real store holding i-1's first history page and its running run, with every GET counted. */
async function storeWithCaches() {
  const gets: string[] = [];
  const runs = { current: [running, older] };
  server.use(
    http.get('/instances/:id/script/runs', () => {
      gets.push('runs');
      return HttpResponse.json({ items: runs.current.map(summaryOf), total: runs.current.length, page: 1, pageSize: 25 });
    }),
    http.get('/instances/:id/script/runs/:runId', ({ params }) => {
      gets.push(`run ${params.runId}`);
      return HttpResponse.json(runs.current.find((run) => run.id === params.runId));
    }),
  );
  const navigate = jest.fn();
  const store = setupStore(undefined, { navigate, getLocation: () => window.location });
  store.dispatch(scriptsApi.endpoints.scriptRuns.initiate(listArgs));
  store.dispatch(scriptsApi.endpoints.scriptRun.initiate({ instanceId: 'i-1', runId: 'r-2' }));
  await waitFor(() => expect(gets).toHaveLength(2));
  const cached = {
    page: () => scriptsApi.endpoints.scriptRuns.select(listArgs)(store.getState()).data,
    run: () => scriptsApi.endpoints.scriptRun.select({ instanceId: 'i-1', runId: 'r-2' })(store.getState()).data,
  };
  return { store, gets, cached, runs, navigate };
}

describe('scriptsSaga: ScriptRunUpdated', () => {
  it('moves phase and progress of a run into the cached run and history row, without asking the server', async () => {
    const { store, gets, cached } = await storeWithCaches();
    const update = summaryOf({ ...running, phase: 'running', progress: { statement: 2, of: 5 }, statements: 5 });
    store.dispatch(hubEvent('ScriptRunUpdated', { run: update }, 't'));
    await settle();

    expect(cached.run()).toMatchObject({ phase: 'running', progress: { statement: 2, of: 5 }, statements: 5, results: [] });
    expect(cached.page()?.items[0]).toMatchObject({ id: 'r-2', phase: 'running', progress: { statement: 2, of: 5 } });
    expect(cached.page()?.items[1]).toEqual(summaryOf(older));
    expect(gets).toHaveLength(2);
  });

  it('reads a finished run again for its results (the event carries none)', async () => {
    const { store, gets, cached, runs } = await storeWithCaches();
    const finished = aScriptRun({ ...running, status: 'succeeded', phase: 'finished', finishedAt: '2025-02-04T03:00:05.000Z', durationMs: 5000, ok: true });
    runs.current = [finished, older];
    store.dispatch(hubEvent('ScriptRunUpdated', { run: summaryOf(finished) }, 't'));

    await waitFor(() => expect(cached.run()?.results).toEqual(finished.results));
    expect(gets.slice(2)).toEqual(['run r-2']);
    expect(cached.page()?.items[0]).toMatchObject({ status: 'succeeded', ok: true, durationMs: 5000 });
  });

  it('reads the history again for a run it does not list yet (started elsewhere)', async () => {
    const { store, gets, cached, runs } = await storeWithCaches();
    const other = aPendingRun({ id: 'r-3', createdBy: 'bob@example.com', startedAt: '2025-02-05T03:00:00.000Z' });
    runs.current = [other, running, older];
    store.dispatch(hubEvent('ScriptRunUpdated', { run: summaryOf(other) }, 't'));

    await waitFor(() => expect(cached.page()?.items.map((run) => run.id)).toEqual(['r-3', 'r-2', 'r-1']));
    expect(gets.slice(2)).toEqual(['runs']);
  });
});

describe('scriptsSaga: leaving with unsaved changes', () => {
  it('goes on to where the person wanted to go after a yes, and nowhere after a no', async () => {
    const { store, navigate } = await storeWithCaches();

    store.dispatch(unsavedLeaveRequested({ to: '/instances/i-1?tab=logs' }));
    expect(store.getState().ui.modal).toMatchObject({ title: 'Leave without saving?', component: 'confirm', props: { confirmLabel: 'Leave', destructive: true } });
    store.dispatch(closeModal(false));
    await settle();
    expect(navigate).not.toHaveBeenCalled();

    store.dispatch(unsavedLeaveRequested({ to: '/instances/i-1?tab=logs' }));
    store.dispatch(closeModal(true));
    await settle();
    expect(navigate).toHaveBeenCalledWith('/instances/i-1?tab=logs');
  });
});
