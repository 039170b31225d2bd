import { combineReducers, type Dispatch, type EnhancedStore, type ThunkDispatch, type UnknownAction } from '@reduxjs/toolkit';
import { baseApi } from '../api/baseApi';
import { authSlice } from '../features/auth/authSlice';
import { instancesUpdateSlice } from '../features/instances/updatesSlice';
import { logsTailSlice } from '../features/logs/logsSlice';
import { realtimeSlice } from '../features/realtime/realtimeSlice';
import { uiSlice } from '../features/ui/uiSlice';

/**
 * The console's state, one slice per feature. It lives apart from store.ts so that features can
 * name the state and the store without importing the store, which imports every saga.
 */
export const rootReducer = combineReducers({
  [baseApi.reducerPath]: baseApi.reducer,
  [authSlice.name]: authSlice.reducer,
  [uiSlice.name]: uiSlice.reducer,
  [realtimeSlice.name]: realtimeSlice.reducer,
  [instancesUpdateSlice.name]: instancesUpdateSlice.reducer,
  [logsTailSlice.name]: logsTailSlice.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

/**
 * The store's dispatch: plain actions and thunks such as RTK Query's `initiate`. Spelled out rather
 * than read off setupStore for the reason above; setupStore's return type checks that its store has it.
 */
export type AppDispatch = ThunkDispatch<RootState, undefined, UnknownAction> & Dispatch<UnknownAction>;

export type AppStore = EnhancedStore<RootState, UnknownAction> & { dispatch: AppDispatch };
