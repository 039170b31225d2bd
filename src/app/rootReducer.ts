import { combineSlices, type Dispatch, type EnhancedStore, type ThunkDispatch, type UnknownAction } from '@reduxjs/toolkit';
import { baseApi } from '../api/baseApi';
import { authSlice } from '../features/auth/authSlice';
import type { instancesUpdateSlice } from '../features/instances/updatesSlice';
import type { logsTailSlice } from '../features/logs/logsSlice';
import type { realtimeSlice } from '../features/realtime/realtimeSlice';
import { uiSlice } from '../features/ui/uiSlice';

/** The slices only the screens behind sign-in use: src/app/signedInSlices.ts adds them with the signed-in shell. */
export interface SignedInState {
  [realtimeSlice.name]: ReturnType<typeof realtimeSlice.reducer>;
  [instancesUpdateSlice.name]: ReturnType<typeof instancesUpdateSlice.reducer>;
  [logsTailSlice.name]: ReturnType<typeof logsTailSlice.reducer>;
}

/**
 * The console's state, one slice per feature. It lives apart from store.ts so that features can
 * name the state and the store without importing the store, which imports every saga. The sign-in
 * page's slices are here from the start; the others are injected, so the page does not carry them.
 */
export const rootReducer = combineSlices(baseApi, authSlice, uiSlice).withLazyLoadedSlices<SignedInState>();

/**
 * The whole state, the signed-in slices included: the screens and sagas that read those run only
 * after the shell injected them (the sign-in page reads none of them).
 */
export type RootState = Required<ReturnType<typeof rootReducer>>;

/**
 * The store's dispatch: plain actions and thunks such as RTK Query's `initiate`. Spelled out rather
 * than read off setupStore for the reason above; setupStore's return type checks that its store has it.
 */
export type AppDispatch = ThunkDispatch<RootState, undefined, UnknownAction> & Dispatch<UnknownAction>;

export type AppStore = EnhancedStore<RootState, UnknownAction> & { dispatch: AppDispatch };
