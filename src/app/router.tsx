import type { ComponentType } from 'react';
import { createBrowserRouter, replace, type RouteObject } from 'react-router-dom';
import type { Role } from '../../contracts/roles';
import { routes, type RouteName } from '../../contracts/routes';
import { accountPaths } from '../features/auth/accountPaths';
import { retryable } from './chunkRetry';
import { redirectSignedIn, requireRole, requireUser, type PreviousLocation } from './guard';
import { RouteError } from './RouteError';
import type { AppStore } from './store';

export type AppRouter = ReturnType<typeof createBrowserRouter>;

/** A lazy screen: webpack puts each in its own chunk, loaded on first visit (again, if that failed). */
function screen<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) {
  return retryable(async () => ({ Component: (await load())[name] }));
}

/**
 * A screen inside the Chakra frame, which brings Chakra's styles and the overlays: every screen but
 * sign-in has one. The frame's chunk loads beside the screen's.
 */
async function framed(loadScreen: Promise<ComponentType>): Promise<ComponentType> {
  const [Screen, { ChakraFrame }] = await Promise.all([loadScreen, import('../features/ui/ChakraFrame')]);
  const Framed = () => (
    <ChakraFrame>
      <Screen />
    </ChakraFrame>
  );
  Framed.displayName = `Framed(${Screen.displayName ?? Screen.name})`;
  return Framed;
}

/** A lazy screen of its own, outside the signed-in layout, in the Chakra frame. */
function framedScreen<Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) {
  return retryable(async () => ({ Component: await framed(load().then((module) => module[name])) }));
}

/** Nothing shows while the first loaders wait for the current user (SPEC §1). */
const NothingYet = () => null;

/** A route that only sends on; its loader redirects before anything would render. */
const redirectRoute = (to: string) => ({
  loader: () => replace(to),
  Component: NothingYet,
});

/**
 * Runs before the signed-in shell first shows: the browser starts the shell's sagas there
 * (src/index.tsx); tests start every saga with the store and pass none.
 */
export type ShellStart = () => Promise<void>;

/** Every screen of SPEC §2, its path and name from contracts/routes.ts (the route id is the name). */
export function appRoutes(store: AppStore, previousLocation: PreviousLocation, startShell?: ShellStart): RouteObject[] {
  const route = (name: RouteName, rest: Omit<RouteObject, 'id' | 'path' | 'index' | 'children'>): RouteObject => {
    const { path, role } = routes[name] as { path: string; role?: Role };
    return { id: name, path, ...(role && { loader: requireRole(store, role, previousLocation) }), ...rest };
  };

  return [
    {
      id: 'root',
      HydrateFallback: NothingYet,
      // The only error element: a failure anywhere below shows here, never as react-router's default.
      ErrorBoundary: RouteError,
      children: [
        // Where an ended session leads inside the console. A first visit to /login loads the page alone
        // (login.html, src/login.tsx): drawn without Chakra, Redux or the router (features/auth/LoginPage.tsx).
        route('login', {
          loader: redirectSignedIn(store),
          lazy: screen(() => import(/* webpackChunkName: "sign-in" */ '../features/auth/SignInRoute'), 'SignInRoute'),
        }),
        // The account screens beside /login. The e-mail links (confirm, reset) open even in a
        // signed-in browser; asking for an account or a reset link is for the signed-out.
        {
          id: 'register',
          path: accountPaths.register,
          loader: redirectSignedIn(store),
          lazy: framedScreen(() => import('../features/auth/RegisterPage'), 'RegisterPage'),
        },
        {
          id: 'forgotPassword',
          path: accountPaths.forgotPassword,
          loader: redirectSignedIn(store),
          lazy: framedScreen(() => import('../features/auth/ForgotPasswordPage'), 'ForgotPasswordPage'),
        },
        {
          id: 'confirmEmail',
          path: accountPaths.confirmEmail,
          lazy: framedScreen(() => import('../features/auth/ConfirmEmailPage'), 'ConfirmEmailPage'),
        },
        {
          id: 'resetPassword',
          path: accountPaths.resetPassword,
          lazy: framedScreen(() => import('../features/auth/ResetPasswordPage'), 'ResetPasswordPage'),
        },
        {
          id: 'layout',
          loader: requireUser(store),
          // The shell and everything behind sign-in load after it, never with the sign-in page.
          lazy: retryable(async () => {
            const [Component] = await Promise.all([
              framed(import(/* webpackChunkName: "shell" */ '../features/layout/Layout').then(({ Layout }) => Layout)),
              startShell?.(),
            ]);
            return { Component };
          }),
          children: [
            route('instances', { lazy: screen(() => import('../features/instances/InstancesPage'), 'InstancesPage') }),
            route('singleInstance', { lazy: screen(() => import('../features/instances/InstancePage'), 'InstancePage') }),
            // Declared after :id as in SPEC §2; the router ranks the static segment first anyway.
            route('createInstance', {
              lazy: screen(() => import('../features/instances/CreateInstancePage'), 'CreateInstancePage'),
            }),
            route('editConfiguration', {
              lazy: screen(() => import('../features/instances/EditConfigurationPage'), 'EditConfigurationPage'),
            }),
            route('instanceScript', {
              lazy: screen(() => import('../features/scripts/InstanceScriptPage'), 'InstanceScriptPage'),
            }),
            route('instanceDatabaseBackups', {
              lazy: screen(() => import('../features/backups/InstanceDatabaseBackupsPage'), 'InstanceDatabaseBackupsPage'),
            }),
            route('instanceFileBackups', {
              lazy: screen(() => import('../features/backups/InstanceFileBackupsPage'), 'InstanceFileBackupsPage'),
            }),
            {
              id: 'instanceGraphs',
              path: routes.instanceGraphs.path,
              children: [
                { index: true, ...redirectRoute(routes.instanceCreationGraph.path) },
                route('instanceCreationGraph', {
                  lazy: screen(() => import('../features/graphs/InstanceCreationGraphPage'), 'InstanceCreationGraphPage'),
                }),
              ],
            },
            route('instancesUpdate', {
              lazy: screen(() => import('../features/instances/InstancesUpdatePage'), 'InstancesUpdatePage'),
            }),
            route('groups', { lazy: screen(() => import('../features/groups/GroupsPage'), 'GroupsPage') }),
            route('group', { lazy: screen(() => import('../features/groups/GroupPage'), 'GroupPage') }),
            route('logs', { lazy: screen(() => import('../features/logs/LogsPage'), 'LogsPage') }),
            route('backups', { lazy: screen(() => import('../features/backups/BackupsPage'), 'BackupsPage') }),
            route('clients', { lazy: screen(() => import('../features/clients/ClientsPage'), 'ClientsPage') }),
            route('profile', { lazy: screen(() => import('../features/profile/ProfilePage'), 'ProfilePage') }),
            route('admin-users', { lazy: screen(() => import('../features/admin/UsersPage'), 'UsersPage') }),
            route('admin-user', { lazy: screen(() => import('../features/admin/UserPage'), 'UserPage') }),
            route('admin-audit', { lazy: screen(() => import('../features/audit/AuditPage'), 'AuditPage') }),
            route('admin-hosts', { lazy: screen(() => import('../features/hosts/HostsPage'), 'HostsPage') }),
            route('debug', { lazy: screen(() => import('../features/debug/DebugPage'), 'DebugPage') }),
          ],
        },
        { path: '/', ...redirectRoute(routes.instances.path) },
        { path: '*', ...redirectRoute(routes.instances.path) },
      ],
    },
  ];
}

type CreateRouter = (routeObjects: RouteObject[]) => AppRouter;

/** The app's router; tests pass a memory router factory. */
export function createAppRouter(store: AppStore, create: CreateRouter = createBrowserRouter, startShell?: ShellStart): AppRouter {
  const made: { router?: AppRouter } = {};
  // The role guard needs the location being left; before the first load completes there is none.
  const previousLocation = () => (made.router?.state.initialized ? made.router.state.location : null);
  made.router = create(appRoutes(store, previousLocation, startShell));
  return made.router;
}
