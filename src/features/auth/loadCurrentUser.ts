import type { CurrentUser } from '../../../contracts/auth';
import type { AppStore } from '../../app/rootReducer';
import { authApi } from './authApi';
import { selectAuthStatus, selectCurrentUser } from './selectors';

/**
 * The signed-in user, once known: route loaders await this so that nothing renders and no
 * guard decides before the first current-user call has answered. A call already in flight
 * is joined, not repeated.
 */
export async function loadCurrentUser(store: Pick<AppStore, 'dispatch' | 'getState'>): Promise<CurrentUser | null> {
  if (selectAuthStatus(store.getState()) === 'unknown') {
    await store.dispatch(authApi.endpoints.me.initiate(undefined, { subscribe: false }));
  }
  return selectCurrentUser(store.getState());
}
