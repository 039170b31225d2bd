import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { OperationCompletedPayload } from '../../../contracts/instances';
import { callMutation } from '../../api/callMutation';
import { problemText } from '../../api/problemText';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { instanceTags } from './instancesApi';
import { updatesApi } from './updatesApi';
import { updateAccepted, updateRefused, updatesQueued, type UpdateTarget } from './updatesSlice';

export const instancesUpdateRequested = createAction<{ targets: UpdateTarget[] }>('instancesUpdate/requested');

export function* updatesSaga(): SagaIterator {
  yield takeLeading(instancesUpdateRequested.type, updateInstances);
  yield takeEvery(hubEventType('OperationCompleted'), refreshUpdated);
}

const plural = (n: number) => (n === 1 ? '1 instance' : `${n} instances`);
const namesOf = (targets: UpdateTarget[]) =>
  targets.length <= 5
    ? targets.map((target) => target.name).join(', ')
    : `${targets.slice(0, 4).map((target) => target.name).join(', ')} and ${targets.length - 4} more`;

/**
 * Update after a yes: every picked instance is queued, then asked for one after another; the
 * server runs each as an operation and the hub events carry it to done or failed.
 */
export function* updateInstances({ payload: { targets } }: ReturnType<typeof instancesUpdateRequested>): SagaIterator {
  if (targets.length === 0) return;
  const confirmed = yield call(showModal, {
    title: `Update ${targets.length === 1 ? targets[0].name : plural(targets.length)}?`,
    description: `${namesOf(targets)}: each restarts on the newest installed engine, and its connections drop while it does.`,
    component: 'confirm',
    props: { confirmLabel: 'Update and restart', destructive: true },
  });
  if (confirmed !== true) return;

  yield put(updatesQueued(targets));
  for (const { id } of targets) {
    const outcome = yield call(callMutation, updatesApi.endpoints.updateEngine.initiate(id, { track: false }));
    if (outcome.error) yield put(updateRefused({ id, error: problemText(outcome.error) ?? 'The update was refused.' }));
    else yield put(updateAccepted(id));
  }
}

/** A finished update changes the instance's engine version: the updatable list is stale. */
export function* refreshUpdated({ payload: { instanceId, kind } }: HubEventAction<OperationCompletedPayload>): SagaIterator {
  if (kind !== 'update') return;
  yield put(updatesApi.util.invalidateTags([instanceTags.instance(instanceId)]));
}
