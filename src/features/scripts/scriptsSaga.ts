import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type { ScriptRunUpdatedPayload } from '../../../contracts/scripts';
import type { NavigationDeps } from '../../app/deps';
import type { RootState } from '../../app/rootReducer';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { isRunListed, patchCachedRun, scriptsApi, scriptTags } from './scriptsApi';

/** Someone with unsaved changes to a script tried to go to `to` (the guard held the navigation). */
export const unsavedLeaveRequested = createAction<{ to: string }>('scripts/unsavedLeaveRequested');

export function* scriptsSaga(deps: NavigationDeps): SagaIterator {
  yield takeEvery(hubEventType('ScriptRunUpdated'), applyRunUpdate);
  yield takeLeading(unsavedLeaveRequested.type, confirmLeave, deps);
}

/** Leave only after a yes: the changes are lost. */
export function* confirmLeave(deps: NavigationDeps, { payload: { to } }: ReturnType<typeof unsavedLeaveRequested>): SagaIterator {
  const leave = yield call(showModal, {
    title: 'Leave without saving?',
    description: 'The script has changes that are not saved. They are lost if you leave this page.',
    component: 'confirm',
    props: { confirmLabel: 'Leave', destructive: true },
  });
  if (leave === true) yield call(deps.navigate, to);
}

/**
 * A run started, changed phase, moved on a statement or finished: the cached run and history rows
 * take the pushed summary at once. A finished run's results are read again (the event carries
 * none), and a run no cached history page lists yet (started elsewhere) makes the history refresh.
 */
export function* applyRunUpdate({ payload: { run } }: HubEventAction<ScriptRunUpdatedPayload>): SagaIterator {
  const state: RootState = yield select();
  const listed = isRunListed(state, run);
  yield put(patchCachedRun(run.instanceId, run));
  const stale = [...(run.finishedAt !== null ? [scriptTags.run(run.id)] : []), ...(listed ? [] : [scriptTags.runs(run.instanceId)])];
  if (stale.length > 0) yield put(scriptsApi.util.invalidateTags(stale));
}
