import { createPath, replace, type LoaderFunction, type Path } from 'react-router-dom';
import { hasRole, type Role } from '../../contracts/roles';
import { routes } from '../../contracts/routes';
import { loadCurrentUser } from '../features/auth/loadCurrentUser';
import { loginUrlFor, safeReturnUrl } from '../features/auth/returnUrl';
import type { AppStore } from './store';

type GuardStore = Pick<AppStore, 'dispatch' | 'getState'>;

/** The location being left, or null on the first load of the app. */
export type PreviousLocation = () => Path | null;

// Every redirect replaces the history entry, so Back never lands on a page that bounces again.

/** The signed-in layout: without a session, sign in first and come back here. */
export function requireUser(store: GuardStore): LoaderFunction {
  return async ({ request }) => {
    const user = await loadCurrentUser(store);
    return user ? null : replace(loginUrlFor(new URL(request.url)));
  };
}

/**
 * SPEC §5: wait for the user, then allow only that role. A refused navigation is cancelled —
 * the person stays on the page they were on; on a first load there is none, so /instances.
 */
export function requireRole(store: GuardStore, role: Role, previousLocation: PreviousLocation): LoaderFunction {
  return async () => {
    const user = await loadCurrentUser(store);
    // No session at all is requireUser's case: it sends the person to sign in.
    if (!user || hasRole(user, role)) return null;
    const previous = previousLocation();
    // Coming from the login screen (a returnUrl the new user may not open) is a first load too.
    const stay = previous && previous.pathname !== routes.login.path ? createPath(previous) : routes.instances.path;
    return replace(stay);
  };
}

/** The login screen: someone already signed in goes straight on to returnUrl. */
export function redirectSignedIn(store: GuardStore): LoaderFunction {
  return async ({ request }) => {
    const user = await loadCurrentUser(store);
    return user ? replace(safeReturnUrl(new URL(request.url).searchParams.get('returnUrl'))) : null;
  };
}
