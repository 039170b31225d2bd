import type { SagaIterator } from 'redux-saga';
import { call, put, select, take } from 'redux-saga/effects';
import { routes } from '../../../contracts/routes';
import { baseApi } from '../../api/baseApi';
import type { RootState } from '../../app/rootReducer';
import type { NavigationDeps } from '../../app/deps';
import { loginUrlFor } from './returnUrl';
import { selectIsAuthenticated } from './selectors';

function* waitUntil(predicate: (state: RootState) => boolean): SagaIterator {
  while (!(yield select(predicate))) yield take('*');
}

/**
 * Whenever a signed-in session ends — log out, an expired session (a 401 anywhere, the
 * current-user call included) — open the login screen with the way back to where the person
 * was. One watcher for every cause, so the console never sits on a blank layout. The cached
 * server data goes with the session: the next person to sign in on this tab must not see it.
 */
export function* sessionSaga({ navigate, getLocation }: NavigationDeps): SagaIterator {
  for (;;) {
    yield* waitUntil(selectIsAuthenticated);
    yield* waitUntil((state) => !selectIsAuthenticated(state));
    const here = getLocation();
    if (here.pathname !== routes.login.path) yield call(navigate, loginUrlFor(here));
    yield put(baseApi.util.resetApiState());
  }
}
