import { render } from '@testing-library/react';
import { createMemoryRouter } from 'react-router-dom';
import { App } from '../../src/app/App';
import { createAppRouter } from '../../src/app/router';
import { setupStore } from '../../src/app/store';

/**
 * The whole console at `path`, on a memory router; the store's navigation goes through that
 * router as it does in the browser. The server is whatever msw handlers the test installed (GET /auth/me among them).
 */
export function renderApp(path: string) {
  const app: { router?: ReturnType<typeof createAppRouter> } = {};
  const store = setupStore(undefined, {
    navigate: (to) => app.router?.navigate(to),
    getLocation: () => app.router!.state.location,
  });
  app.router = createAppRouter(store, (routes) => createMemoryRouter(routes, { initialEntries: [path] }));
  const router = app.router;
  const view = render(<App store={store} router={router} />);
  /** Where the router is now, as path + query. */
  const location = () => `${router.state.location.pathname}${router.state.location.search}`;
  return { ...view, store, router, location };
}
