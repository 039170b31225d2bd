import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type { Backup, BackupCompletedPayload, BackupDeletedPayload, BackupProgressPayload, BackupUpdatedPayload } from '../../../contracts/backups';
import { formatBytes } from '../../../contracts/backupValues';
import { callMutation } from '../../api/callMutation';
import { errorStatus, problemText } from '../../api/problemText';
import type { RootState } from '../../app/rootReducer';
import { formatDateTime } from '../../components/DateTime';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { pushToast } from '../ui/uiSlice';
import { isBackupActive } from './backupLabels';
import { backupsApi, backupTags, clearRunningBackup, isBackupCached, patchCachedBackup, removeCachedBackup } from './backupsApi';

type BackupToDelete = Pick<Backup, 'id' | 'instanceId' | 'instanceName' | 'kind' | 'startedAt'>;

export const backupDeletionRequested = createAction<{ backup: BackupToDelete }>('backups/deletionRequested');

export function* backupsSaga(): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(backupDeletionRequested.type, deleteBackup);
  yield takeEvery(hubEventType('BackupProgress'), applyProgress);
  yield takeEvery([hubEventType('BackupUpdated'), hubEventType('BackupCompleted')], applyBackup);
  yield takeEvery(hubEventType('BackupCompleted'), reportCompletion);
  yield takeEvery(hubEventType('BackupDeleted'), applyDeletion);
}

// ---- What the person asks for ----

/**
 * Delete after a yes. The server refuses to delete the last good backup of an instance (409) and
 * says why; the person may then delete it anyway.
 */
export function* deleteBackup({ payload: { backup } }: ReturnType<typeof backupDeletionRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: 'Delete this backup?',
    description: `The ${backup.kind} backup of ${backup.instanceName} taken ${formatDateTime(backup.startedAt)} is removed from storage. This cannot be undone.`,
    component: 'confirm',
    props: { confirmLabel: 'Delete', destructive: true },
  });
  if (confirmed !== true) return;

  const deleteIt = (force: boolean) =>
    call(callMutation, backupsApi.endpoints.deleteBackup.initiate({ id: backup.id, instanceId: backup.instanceId, kind: backup.kind, force }, { track: false }));
  const outcome = yield deleteIt(false);
  if (errorStatus(outcome.error) !== 409) return;
  const anyway = yield call(showModal, {
    title: 'Delete this backup anyway?',
    description: problemText(outcome.error) ?? 'The server advises against deleting this backup.',
    component: 'confirm',
    props: { confirmLabel: 'Delete anyway', destructive: true },
  });
  if (anyway === true) yield deleteIt(true);
}

// ---- What the hub tells ----

/** Bytes done, percent and step of a backup being taken, wherever it is shown. */
export function* applyProgress({ payload }: HubEventAction<BackupProgressPayload>): SagaIterator {
  const { backupId, instanceId, bytes, percent, step } = payload;
  yield put(
    patchCachedBackup({ id: backupId, instanceId }, (cached) => {
      // A progress event overtaken by the outcome changes nothing.
      if (isBackupActive(cached.status)) cached.progress = { bytes, percent, step };
    }),
  );
}

/**
 * A backup started, ended, was verified or otherwise changed: the copy the event carries replaces
 * the cached one at once. The figures that count it — the instance's summary, the totals of the
 * list of all backups — come from the server; and a backup no cached page holds may belong on
 * one of the instance's lists, so those are read again too.
 */
export function* applyBackup({ payload: { backup } }: HubEventAction<BackupUpdatedPayload>): SagaIterator {
  const state: RootState = yield select();
  const held = isBackupCached(state, backup);
  yield put(patchCachedBackup(backup, (cached) => void Object.assign(cached, backup)));
  if (!isBackupActive(backup.status)) yield put(clearRunningBackup(backup));
  const counted = [backupTags.summary(backup.instanceId), backupTags.list];
  yield put(backupsApi.util.invalidateTags(held ? counted : [...counted, backupTags.instanceLists(backup.instanceId)]));
}

export function* reportCompletion({ payload: { backup } }: HubEventAction<BackupCompletedPayload>): SagaIterator {
  if (backup.status === 'failed') {
    yield put(pushToast({ status: 'error', summary: 'Backup failed', detail: backup.error ?? `${backup.instanceName}: no reason given.` }));
  } else if (backup.status === 'succeeded') {
    yield put(pushToast({ status: 'success', summary: 'Backup finished', detail: `${backup.instanceName}, ${formatBytes(backup.sizeBytes)}` }));
  }
}

/** Gone from every page at once; the pages that showed it are read again to fill the gap, and the figures recounted. */
export function* applyDeletion({ payload: { id, instanceId } }: HubEventAction<BackupDeletedPayload>): SagaIterator {
  yield put(removeCachedBackup({ id, instanceId }));
  // By the instance's tag: the patched pages no longer provide the backup's own.
  yield put(backupsApi.util.invalidateTags([backupTags.instanceLists(instanceId), backupTags.summary(instanceId), backupTags.list]));
}
