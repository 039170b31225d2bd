import type { SagaIterator } from 'redux-saga';
import { put, takeEvery } from 'redux-saga/effects';
import type { StatisticsChangedPayload } from '../../../contracts/statistics';
import { hubEventType, type HubEventAction } from '../realtime/realtimeSlice';
import { statisticsApi, statisticsTags } from './statisticsApi';

export function* statisticsSaga(): SagaIterator {
  yield takeEvery(hubEventType('StatisticsChanged'), applyStatistics);
}

/**
 * The event carries the receiver's own figures whole: they replace the cached ones without a
 * request (nothing is cached until a screen asks). A group's figures are a narrower count the
 * event does not carry, so they are asked again.
 */
export function* applyStatistics({ payload }: HubEventAction<StatisticsChangedPayload>): SagaIterator {
  yield put(statisticsApi.util.updateQueryData('statistics', undefined, () => payload));
  yield put(statisticsApi.util.invalidateTags([statisticsTags.ofGroups]));
}
