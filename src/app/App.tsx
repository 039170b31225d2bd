import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { useMeQuery } from '../features/auth/authApi';
import type { AppRouter } from './router';
import type { AppStore } from './store';

/**
 * Keeps the current-user query subscribed for the app's lifetime, so that invalidating 'me'
 * (log out, SPEC §4) refetches it instead of dropping it from the cache.
 */
function CurrentUserSubscription() {
  useMeQuery();
  return null;
}

/** The store and the router; Chakra and the overlays come with the screens (features/ui/ChakraFrame.tsx). */
export function App({ store, router }: { store: AppStore; router: AppRouter }) {
  return (
    <Provider store={store}>
      <CurrentUserSubscription />
      <RouterProvider router={router} />
    </Provider>
  );
}
