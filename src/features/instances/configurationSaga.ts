import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { Instance, OperationCompletedPayload } from '../../../contracts/instances';
import { callMutation } from '../../api/callMutation';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { configApi } from './configApi';
import { instanceTags } from './instancesApi';

export const revisionRestoreRequested = createAction<{ instance: Pick<Instance, 'id' | 'name'>; revision: number }>(
  'configuration/revisionRestoreRequested',
);

export function* configurationSaga(): SagaIterator {
  yield takeLeading(revisionRestoreRequested.type, restoreRevision);
  yield takeEvery(hubEventType('OperationCompleted'), refreshConfiguration);
}

/** Restoring writes the old values as a new revision and reloads; changes that need a restart wait for one. */
export function* restoreRevision({ payload: { instance, revision } }: ReturnType<typeof revisionRestoreRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: `Restore revision ${revision} of ${instance.name}?`,
    description:
      'The parameters go back to the values of that revision, saved as a new revision. ' +
      'Changes a reload applies take effect now; the others wait for a restart.',
    component: 'confirm',
    props: { confirmLabel: 'Restore' },
  });
  if (confirmed !== true) return;
  yield call(
    callMutation,
    configApi.endpoints.restoreConfigRevision.initiate({ instanceId: instance.id, revision, apply: 'reload' }, { track: false }),
  );
}

/** Any finished operation (reload, restart, update …) may change what runs and what waits for a restart. */
export function* refreshConfiguration({ payload: { instanceId } }: HubEventAction<OperationCompletedPayload>): SagaIterator {
  yield put(configApi.util.invalidateTags([instanceTags.config(instanceId)]));
}
