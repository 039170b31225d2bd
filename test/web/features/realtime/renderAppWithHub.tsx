import { render } from '@testing-library/react';
import { createMemoryRouter } from 'react-router-dom';
import { App } from '../../../../src/app/App';
import { createAppRouter } from '../../../../src/app/router';
import { setupStore } from '../../../../src/app/store';
import { fakeHubFactory, type FakeHub } from './fakeHub';

/**
 * renderApp with a live connection: the whole console at `path` on a memory router, its realtime
 * saga on fake hubs the test drives. The server is whatever msw handlers the test installed.
 */
export function renderAppWithHub(path: string, configure?: (hub: FakeHub, index: number) => void) {
  const factory = fakeHubFactory(configure);
  const app: { router?: ReturnType<typeof createAppRouter> } = {};
  const store = setupStore(undefined, {
    navigate: (to) => app.router?.navigate(to),
    getLocation: () => app.router!.state.location,
    createHub: factory.createHub,
  });
  app.router = createAppRouter(store, (routes) => createMemoryRouter(routes, { initialEntries: [path] }));
  const view = render(<App store={store} router={app.router} />);
  return { ...view, ...factory, store, router: app.router };
}
