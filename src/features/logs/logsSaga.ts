import { createAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type { LogsAppendedPayload } from '../../../contracts/logs';
import { callMutation } from '../../api/callMutation';
import type { RootState } from '../../app/rootReducer';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { showModal } from '../ui/showModal';
import { pushToast } from '../ui/uiSlice';
import { matchesFilters } from './logFilters';
import { logsApi, type ClearLogsArgs } from './logsApi';
import { entriesArrived, tailOpened } from './logsSlice';

/** "Clear…": what will be removed, in words, and the call that removes it. */
export const clearLogsRequested = createAction<{ args: ClearLogsArgs; description: string }>('logs/clearRequested');

export function* logsSaga(): SagaIterator {
  yield takeEvery(hubEventType('LogsAppended'), tailEntries);
  yield takeLeading(clearLogsRequested.type, clearLogs);
}

/** New entries join the open log view when live and matching its filters; the slice holds them while the reader is busy. */
export function* tailEntries({ payload }: HubEventAction<LogsAppendedPayload>): SagaIterator {
  const { live, filters }: RootState['logsTail'] = yield select((state: RootState) => state.logsTail);
  if (!live || !filters) return;
  const fresh = payload.entries.filter((entry) => matchesFilters(filters, entry));
  if (fresh.length > 0) yield put(entriesArrived(fresh));
}

export function* clearLogs({ payload: { args, description } }: ReturnType<typeof clearLogsRequested>): SagaIterator {
  const confirmed = yield call(showModal, {
    title: 'Clear log entries?',
    description: `${description} This cannot be undone.`,
    component: 'confirm',
    props: { confirmLabel: 'Clear entries', destructive: true },
  });
  if (confirmed !== true) return;
  const outcome = yield call(callMutation, logsApi.endpoints.clearLogs.initiate(args, { track: false }));
  if (outcome.data) {
    const { removed } = outcome.data as { removed: number };
    yield put(pushToast({ status: 'success', summary: 'Log entries cleared', detail: `${removed} ${removed === 1 ? 'entry' : 'entries'} removed.` }));
    // Live entries shown so far may be among the removed; the refetched pages say what is left.
    const filters: RootState['logsTail']['filters'] = yield select((state: RootState) => state.logsTail.filters);
    if (filters) yield put(tailOpened(filters));
  }
}
