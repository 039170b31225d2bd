import { configureStore, type Reducer, type UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { baseApi } from '../api/baseApi';
import { rootReducer, type AppStore, type RootState } from './rootReducer';

/**
 * The store and a way to start sagas on it, with no saga started yet: the browser starts the
 * sign-in page's sagas at once and the rest with the signed-in shell (src/index.tsx).
 */
export function createAppStore(preloadedState?: Partial<RootState>) {
  const sagaMiddleware = createSagaMiddleware();
  const store: AppStore = configureStore({
    // Typed as the whole state: the signed-in slices are injected before anything reads them (rootReducer.ts).
    reducer: rootReducer as Reducer<RootState, UnknownAction, Partial<RootState>>,
    preloadedState,
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(baseApi.middleware, sagaMiddleware),
    devTools: process.env.NODE_ENV !== 'production',
  });
  return { store, runSaga: sagaMiddleware.run };
}
