import { combineReducers, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { baseApi } from '../api/baseApi';
import { authSlice } from '../features/auth/authSlice';
import { instancesUpdateSlice } from '../features/instances/updatesSlice';
import { logsTailSlice } from '../features/logs/logsSlice';
import { realtimeSlice } from '../features/realtime/realtimeSlice';
import { uiSlice } from '../features/ui/uiSlice';
import { windowDeps, type StoreDeps } from './deps';
import { rootSaga } from './rootSaga';

const rootReducer = combineReducers({
  [baseApi.reducerPath]: baseApi.reducer,
  [authSlice.name]: authSlice.reducer,
  [uiSlice.name]: uiSlice.reducer,
  [realtimeSlice.name]: realtimeSlice.reducer,
  [instancesUpdateSlice.name]: instancesUpdateSlice.reducer,
  [logsTailSlice.name]: logsTailSlice.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

/** A fresh store per app start and per test (DESIGN §9); side effects come in through deps. */
export function setupStore(preloadedState?: Partial<RootState>, deps: StoreDeps = windowDeps) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(baseApi.middleware, sagaMiddleware),
    devTools: process.env.NODE_ENV !== 'production',
  });
  sagaMiddleware.run(rootSaga, deps);
  return store;
}

export type AppStore = ReturnType<typeof setupStore>;
export type AppDispatch = AppStore['dispatch'];
