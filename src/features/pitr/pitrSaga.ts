import type { SagaIterator } from 'redux-saga';
import { put, takeEvery } from 'redux-saga/effects';
import type { RecoveryWindowChangedPayload } from '../../../contracts/pitr';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { pitrApi, pitrTags } from './pitrApi';

export function* pitrSaga(): SagaIterator {
  yield takeEvery(hubEventType('RecoveryWindowChanged'), applyRecoveryWindow);
}

/**
 * WAL was archived, a backup ended, archiving failed or recovered: the window the event carries
 * replaces the cached one at once, and a plan being shown is worked out again against it.
 */
export function* applyRecoveryWindow({ payload: { instanceId, window } }: HubEventAction<RecoveryWindowChangedPayload>): SagaIterator {
  yield put(pitrApi.util.updateQueryData('recoveryWindow', instanceId, () => window));
  yield put(pitrApi.util.invalidateTags([pitrTags.restorePlan(instanceId)]));
}
