import type { Action } from '@reduxjs/toolkit';
import { put, race, take } from 'redux-saga/effects';
import type { SagaIterator } from 'redux-saga';
import { closeModal, openModal, type ModalRequest } from './uiSlice';

/**
 * Opens the global modal and returns what it was closed with. Another modal taking its place
 * counts as a close without a result (undefined), so no saga waits forever.
 */
export function* showModal<Result = unknown>(request: ModalRequest): SagaIterator<Result | undefined> {
  const opened = openModal(request);
  yield put(opened);
  const { closed } = yield race({
    closed: take(closeModal.type),
    replaced: take((action: Action) => openModal.match(action) && action.payload.id !== opened.payload.id),
  });
  return closed ? (closed as ReturnType<typeof closeModal>).payload as Result : undefined;
}
