import { createAction } from '@reduxjs/toolkit';
import { instancesUpdateSlice } from '../features/instances/updatesSlice';
import { logsTailSlice } from '../features/logs/logsSlice';
import { realtimeSlice } from '../features/realtime/realtimeSlice';
import { rootReducer } from './rootReducer';

/** Dispatched once the signed-in slices are in, so their initial state is in the store before a screen reads it. */
export const signedInSlicesInjected = createAction('app/signedInSlicesInjected');

/** Adds the slices of the screens behind sign-in to the root reducer (in place; again is a no-op). */
export function injectSignedInSlices(): void {
  for (const slice of [realtimeSlice, instancesUpdateSlice, logsTailSlice]) rootReducer.inject(slice);
}
