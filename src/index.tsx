import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { bootSaga } from './app/bootSaga';
import { createAppStore } from './app/createStore';
import type { NavigationDeps } from './app/deps';
import { createAppRouter, type AppRouter } from './app/router';

// The store's sagas navigate through the router, and the router's loaders read the store:
// the sagas reach the router lazily, when they first need it.
const app: { router?: AppRouter } = {};
const navigation: NavigationDeps = {
  navigate: (to) => app.router?.navigate(to),
  getLocation: () => app.router?.state.location ?? window.location,
};
const { store, runSaga } = createAppStore();
runSaga(bootSaga, navigation);

/**
 * The sign-in page needs only the boot sagas; the other sagas, their APIs and the hub client
 * load with the signed-in shell, once.
 */
let shellStarted: Promise<void> | undefined;
const startShell = () =>
  (shellStarted ??= Promise.all([
    import(/* webpackChunkName: "shell" */ './app/rootSaga'),
    import(/* webpackChunkName: "shell" */ './features/realtime/hubConnection'),
  ]).then(([{ signedInSaga }, { createSignalRConnection }]) => {
    runSaga(signedInSaga, { ...navigation, createHub: createSignalRConnection });
  }, (error: unknown) => {
    shellStarted = undefined; // a failed download is tried again on the next navigation
    throw error;
  }));
app.router = createAppRouter(store, undefined, startShell);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App store={store} router={app.router} />
  </StrictMode>,
);
