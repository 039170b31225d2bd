import { createAppStore } from './createStore';
import { windowDeps, type StoreDeps } from './deps';
import type { AppStore, RootState } from './rootReducer';
import { rootSaga } from './rootSaga';

export type { AppDispatch, AppStore, RootState } from './rootReducer';

/** A fresh store per app start and per test (DESIGN §9), every saga running; side effects come in through deps. */
export function setupStore(preloadedState?: Partial<RootState>, deps: StoreDeps = windowDeps): AppStore {
  const { store, runSaga } = createAppStore(preloadedState);
  runSaga(rootSaga, deps);
  return store;
}
