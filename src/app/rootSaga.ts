import type { SagaIterator } from 'redux-saga';
import { all, fork } from 'redux-saga/effects';
import { apiErrorSaga } from '../api/apiErrorSaga';
import { sessionSaga } from '../features/auth/sessionSaga';
import { realtimeSaga } from '../features/realtime/hubSaga';
import type { StoreDeps } from './deps';

export function* rootSaga(deps: StoreDeps): SagaIterator {
  yield all([
    fork(apiErrorSaga),
    fork(sessionSaga, deps),
    ...(deps.createHub ? [fork(realtimeSaga, deps.createHub)] : []),
  ]);
}
