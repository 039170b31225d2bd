import type { HubFactory } from '../features/realtime/hubConnection';

/** Where the browser is, and how to move it: the router in the app, fakes in tests. */
export interface NavigationDeps {
  navigate: (to: string) => unknown;
  getLocation: () => { pathname: string; search: string; hash: string };
}

/** Everything the sagas reach outside the store. Without a hub factory there is no live connection (most tests). */
export interface StoreDeps extends NavigationDeps {
  createHub?: HubFactory;
}

/** Before a router exists (and in tests that never navigate): the window itself. */
export const windowDeps: StoreDeps = {
  navigate: (to) => window.location.assign(to),
  getLocation: () => window.location,
};
