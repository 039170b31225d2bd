import { createAppStore } from './createStore';
import { windowDeps, type StoreDeps } from './deps';
import type { AppStore, RootState } from './rootReducer';
import { rootSaga } from './rootSaga';
import { injectSignedInSlices } from './signedInSlices';

export type { AppDispatch, AppStore, RootState } from './rootReducer';

/**
 * A fresh store per app start and per test (DESIGN §9), every slice and saga in from the start
 * (preloaded state included); side effects come in through deps.
 */
export function setupStore(preloadedState?: Partial<RootState>, deps: StoreDeps = windowDeps): AppStore {
  injectSignedInSlices();
  const { store, runSaga } = createAppStore(preloadedState);
  runSaga(rootSaga, deps);
  return store;
}
