import type { SagaIterator } from 'redux-saga';
import { all, fork } from 'redux-saga/effects';
import { apiErrorSaga } from '../api/apiErrorSaga';
import { sessionSaga } from '../features/auth/sessionSaga';
import type { StoreDeps } from './deps';

/** The sagas the console needs from its first page on, the sign-in page included. */
export function* bootSaga(deps: StoreDeps): SagaIterator {
  yield all([fork(apiErrorSaga), fork(sessionSaga, deps)]);
}
