import type { SagaIterator } from 'redux-saga';
import { put, takeEvery } from 'redux-saga/effects';
import type { DebugMessagePayload } from '../../../contracts/hub';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { pushToast } from '../ui/uiSlice';

/** A DebugMessage pushed by the hub (POST /debug broadcast) shows as an info toast. */
export function* debugMessageSaga(): SagaIterator {
  yield takeEvery(hubEventType('DebugMessage'), function* ({ payload }: HubEventAction<DebugMessagePayload>): SagaIterator {
    yield put(pushToast({ status: 'info', summary: `Message from ${payload.from}`, detail: payload.text }));
  });
}
