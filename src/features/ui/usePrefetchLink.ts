import { useContext, useRef } from 'react';
import { matchRoutes, UNSAFE_DataRouterContext as DataRouterContext } from 'react-router-dom';
import { useAppDispatch } from '../../app/hooks';
import { prefetchData, type Prefetch } from './routePrefetch';

/**
 * Loads the lazy screens a path leads to, as the router would on navigation (the bundler keeps
 * the loaded module, so the router's own load then answers at once).
 */
function loadScreens(routeObjects: Parameters<typeof matchRoutes>[0], to: string): void {
  for (const { route } of matchRoutes(routeObjects, to) ?? []) {
    // Once loaded, the router replaces `lazy` with what it loaded: nothing left to fetch.
    if (typeof route.lazy === 'function') {
      route.lazy().catch(() => {
        // A chunk that fails to load is the navigation's failure to report, not the hover's.
      });
    }
  }
}

/**
 * Handlers for a link to a screen of the console: on hover or focus, load the target screen's
 * chunk and its first data (SPEC §9's link prefetch), so following the link shows it at once.
 */
export function usePrefetchLink(to: string) {
  const dispatch = useAppDispatch();
  // The router's own route table, so the chunk loaded is exactly the one navigation would load.
  const dataRouter = useContext(DataRouterContext);
  const pending = useRef<Prefetch | null>(null);

  const start = () => {
    if (pending.current) return;
    if (dataRouter) loadScreens(dataRouter.router.routes, to);
    const prefetch = prefetchData(dispatch, to);
    pending.current = prefetch;
    void prefetch.settled.then(() => {
      if (pending.current === prefetch) pending.current = null;
    });
  };

  return { onMouseEnter: start, onFocus: start, onClick: () => pending.current?.keep() };
}
