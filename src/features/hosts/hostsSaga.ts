import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, takeEvery, takeLeading } from 'redux-saga/effects';
import type { Host } from '../../../contracts/hosts';
import { callMutation } from '../../api/callMutation';
import { hubEventType } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { hostsApi } from './hostsApi';

/** Drain a host (confirmed first) or put it back in service (at once). */
export const drainingChangeRequested = createAction<{ host: Pick<Host, 'id' | 'name'>; draining: boolean }>('hosts/drainingChangeRequested');

export function* hostsSaga(): SagaIterator {
  // Leading: a second click while the question is open changes nothing.
  yield takeLeading(drainingChangeRequested.type, changeDraining);
  yield takeEvery(hubEventType('HostChanged'), refreshHosts);
}

/** A host registered, was lost, came back or was drained (by another admin, maybe): the list is stale. */
export function* refreshHosts(): SagaIterator {
  yield put(hostsApi.util.invalidateTags(['Hosts']));
}

export function* changeDraining({ payload: { host, draining } }: ReturnType<typeof drainingChangeRequested>): SagaIterator {
  if (draining) {
    const confirmed = yield call(showModal, {
      title: `Drain host ${host.name}?`,
      description: 'It keeps its instances, but no new instance is placed on it.',
      component: 'confirm',
      props: { confirmLabel: 'Drain' },
    });
    if (confirmed !== true) return;
  }
  yield call(callMutation, hostsApi.endpoints.updateHost.initiate({ id: host.id, draining }, { track: false }));
}
