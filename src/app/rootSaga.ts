import type { SagaIterator } from 'redux-saga';
import { all, fork } from 'redux-saga/effects';
import { apiErrorSaga } from '../api/apiErrorSaga';
import { usersSaga } from '../features/admin/usersSaga';
import { sessionSaga } from '../features/auth/sessionSaga';
import { groupsSaga } from '../features/groups/groupsSaga';
import { twoFactorSaga } from '../features/profile/twoFactorSaga';
import { debugMessageSaga } from '../features/debug/debugMessageSaga';
import { realtimeSaga } from '../features/realtime/hubSaga';
import type { StoreDeps } from './deps';

export function* rootSaga(deps: StoreDeps): SagaIterator {
  yield all([
    fork(apiErrorSaga),
    fork(sessionSaga, deps),
    // Confirm-then-act flows of the identity screens (the global modal answers through a saga).
    fork(usersSaga),
    fork(groupsSaga, deps),
    fork(twoFactorSaga),
    fork(debugMessageSaga),
    ...(deps.createHub ? [fork(realtimeSaga, deps.createHub)] : []),
  ]);
}
