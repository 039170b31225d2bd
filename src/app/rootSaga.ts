import type { SagaIterator } from 'redux-saga';
import { all, fork } from 'redux-saga/effects';
import { apiErrorSaga } from '../api/apiErrorSaga';
import { usersSaga } from '../features/admin/usersSaga';
import { sessionSaga } from '../features/auth/sessionSaga';
import { backupsSaga } from '../features/backups/backupsSaga';
import { groupsSaga } from '../features/groups/groupsSaga';
import { instancesSaga } from '../features/instances/instancesSaga';
import { configurationSaga } from '../features/instances/configurationSaga';
import { databasesSaga } from '../features/instances/databasesSaga';
import { updatesSaga } from '../features/instances/updatesSaga';
import { twoFactorSaga } from '../features/profile/twoFactorSaga';
import { debugMessageSaga } from '../features/debug/debugMessageSaga';
import { logsSaga } from '../features/logs/logsSaga';
import { realtimeSaga } from '../features/realtime/hubSaga';
import type { StoreDeps } from './deps';

export function* rootSaga(deps: StoreDeps): SagaIterator {
  yield all([
    fork(apiErrorSaga),
    fork(sessionSaga, deps),
    // Confirm-then-act flows (the global modal answers through a saga) and the hub events they follow.
    fork(usersSaga),
    fork(groupsSaga, deps),
    fork(instancesSaga, deps),
    fork(configurationSaga),
    fork(databasesSaga),
    fork(updatesSaga),
    fork(backupsSaga),
    fork(twoFactorSaga),
    fork(debugMessageSaga),
    fork(logsSaga),
    ...(deps.createHub ? [fork(realtimeSaga, deps.createHub)] : []),
  ]);
}
