import type { SagaIterator } from 'redux-saga';
import { all, call, fork, put } from 'redux-saga/effects';
import { usersSaga } from '../features/admin/usersSaga';
import { backupsSaga } from '../features/backups/backupsSaga';
import { groupsSaga } from '../features/groups/groupsSaga';
import { hostsSaga } from '../features/hosts/hostsSaga';
import { instancesSaga } from '../features/instances/instancesSaga';
import { clusterSaga } from '../features/instances/clusterSaga';
import { configurationSaga } from '../features/instances/configurationSaga';
import { databasesSaga } from '../features/instances/databasesSaga';
import { updatesSaga } from '../features/instances/updatesSaga';
import { twoFactorSaga } from '../features/profile/twoFactorSaga';
import { debugMessageSaga } from '../features/debug/debugMessageSaga';
import { logsSaga } from '../features/logs/logsSaga';
import { monitoringSaga } from '../features/monitoring/monitoringSaga';
import { pitrSaga } from '../features/pitr/pitrSaga';
import { realtimeSaga } from '../features/realtime/hubSaga';
import { scriptsSaga } from '../features/scripts/scriptsSaga';
import { statisticsSaga } from '../features/statistics/statisticsSaga';
import { bootSaga } from './bootSaga';
import type { StoreDeps } from './deps';
import { injectSignedInSlices, signedInSlicesInjected } from './signedInSlices';

/** Every saga: the store of tests, which start with the whole console. */
export function* rootSaga(deps: StoreDeps): SagaIterator {
  yield all([fork(bootSaga, deps), fork(signedInSaga, deps)]);
}

/**
 * The slices and sagas of the screens behind sign-in. The browser loads them with the signed-in
 * shell (src/index.tsx), so the sign-in page does not carry them, their APIs or the hub client.
 * The slices go in first, before the shell's first screen reads them.
 */
export function* signedInSaga(deps: StoreDeps): SagaIterator {
  yield call(injectSignedInSlices);
  yield put(signedInSlicesInjected());
  yield all([
    // Confirm-then-act flows (the global modal answers through a saga) and the hub events they follow.
    fork(usersSaga),
    fork(groupsSaga, deps),
    fork(instancesSaga, deps),
    fork(clusterSaga),
    fork(configurationSaga),
    fork(databasesSaga),
    fork(updatesSaga),
    fork(backupsSaga),
    fork(pitrSaga),
    fork(hostsSaga),
    fork(twoFactorSaga),
    fork(debugMessageSaga),
    fork(logsSaga),
    fork(statisticsSaga),
    fork(monitoringSaga),
    fork(scriptsSaga, deps),
    ...(deps.createHub ? [fork(realtimeSaga, deps.createHub)] : []),
  ]);
}
