import { ChakraProvider } from '@chakra-ui/react';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { useMeQuery } from '../features/auth/authApi';
import { Overlays } from '../features/ui/Overlays';
import { system } from '../theme/system';
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

export function App({ store, router }: { store: AppStore; router: AppRouter }) {
  return (
    <Provider store={store}>
      <ChakraProvider value={system}>
        <CurrentUserSubscription />
        <RouterProvider router={router} />
        <Overlays />
      </ChakraProvider>
    </Provider>
  );
}
