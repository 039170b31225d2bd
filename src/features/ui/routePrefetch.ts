import type { ThunkDispatch, UnknownAction } from '@reduxjs/toolkit';
import { matchPath } from 'react-router-dom';
import { defaultPageSize } from '../../../contracts/pageLimits';
import { routes, type RouteName } from '../../../contracts/routes';

/** SPEC §9: a prefetch that has not finished after this long is abandoned. */
export const prefetchTimeoutMs = 2000;

/** What a prefetch starts: an RTK Query request that can be abandoned. */
interface Started {
  abort(): void;
  unwrap(): Promise<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any store's dispatch
type Dispatch = ThunkDispatch<any, unknown, UnknownAction>;
type Params = Record<string, string | undefined>;

/** A list screen as it opens from a link: its first page, nothing filtered. */
const firstPage = { page: 1, pageSize: defaultPageSize };

/**
 * The APIs of the screens with prefetched data, loaded on demand: links render on the sign-in page
 * too (to screens without data), and the page would otherwise carry the APIs of the screens behind it.
 */
async function screenApis() {
  const [{ instancesApi }, { groupsApi }, { usersApi }] = await Promise.all([
    import('../instances/instancesApi'),
    import('../groups/groupsApi'),
    import('../admin/usersApi'),
  ]);
  return { instancesApi, groupsApi, usersApi };
}

type ScreenApis = Awaited<ReturnType<typeof screenApis>>;

/**
 * The data a screen asks for first, per route: the same endpoint and argument as the screen, so
 * the screen finds it cached. `subscribe: false` keeps it only as long as unused data is kept.
 */
const dataOf: Partial<Record<RouteName, (apis: ScreenApis, dispatch: Dispatch, params: Params) => Started>> = {
  instances: ({ instancesApi }, dispatch) => dispatch(instancesApi.endpoints.instances.initiate(firstPage, { subscribe: false })),
  singleInstance: ({ instancesApi }, dispatch, { id }) => dispatch(instancesApi.endpoints.instance.initiate(id!, { subscribe: false })),
  groups: ({ groupsApi }, dispatch) => dispatch(groupsApi.endpoints.groups.initiate(firstPage, { subscribe: false })),
  group: ({ groupsApi }, dispatch, { id }) => dispatch(groupsApi.endpoints.group.initiate(id!, { subscribe: false })),
  'admin-users': ({ usersApi }, dispatch) => dispatch(usersApi.endpoints.users.initiate(firstPage, { subscribe: false })),
  'admin-user': ({ usersApi }, dispatch, { id }) => dispatch(usersApi.endpoints.user.initiate(id!, { subscribe: false })),
};

/** The route a link leads to, with its params; static paths first (`/instances/create` is no instance). */
export function routeOf(to: string): { name: RouteName; params: Params } | null {
  const pathname = new URL(to, 'http://console').pathname;
  const names = (Object.keys(routes) as RouteName[]).sort((a, b) => Number(routes[a].path.includes(':')) - Number(routes[b].path.includes(':')));
  for (const name of names) {
    const match = matchPath(routes[name].path, pathname);
    if (match) return { name, params: match.params };
  }
  return null;
}

/** A prefetch under way: `keep()` when the person follows the link, so the screen's request is not abandoned. */
export interface Prefetch {
  keep(): void;
  /** Resolves once the data answered, failed or was abandoned. */
  settled: Promise<void>;
}

/**
 * Starts the target screen's data for a link the person is about to follow, and abandons the
 * request if it has not answered within SPEC §9's timeout and the link was not followed.
 */
export function prefetchData(dispatch: Dispatch, to: string, timeoutMs = prefetchTimeoutMs): Prefetch {
  const target = routeOf(to);
  const start = target && dataOf[target.name];
  if (!target || !start) return { keep: () => {}, settled: Promise.resolve() };
  const prefetch = { abandoned: false, request: undefined as Started | undefined };
  const timer = setTimeout(() => {
    prefetch.abandoned = true;
    prefetch.request?.abort();
  }, timeoutMs);
  const settled = screenApis()
    .then((apis) => {
      if (prefetch.abandoned) return; // not even the APIs came in time: nothing to ask for
      prefetch.request = start(apis, dispatch, target.params);
      return prefetch.request.unwrap();
    })
    .then(
      () => undefined,
      // Abandoned or refused (or the APIs failed to load): the screen asks again when it opens, and reports a failure then.
      () => undefined,
    );
  void settled.then(() => clearTimeout(timer));
  return { keep: () => clearTimeout(timer), settled };
}
