import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createAppRouter, type AppRouter } from './app/router';
import { setupStore } from './app/store';
import { createSignalRConnection } from './features/realtime/hubConnection';

// The store's sagas navigate through the router, and the router's loaders read the store:
// the sagas reach the router lazily, when they first need it.
const app: { router?: AppRouter } = {};
const store = setupStore(undefined, {
  navigate: (to) => app.router?.navigate(to),
  getLocation: () => app.router?.state.location ?? window.location,
  createHub: createSignalRConnection,
});
app.router = createAppRouter(store);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App store={store} router={app.router} />
  </StrictMode>,
);
