import type { Role } from './roles';

/**
 * Every screen path and route name of SPEC §2, written once: the browser router builds its
 * routes from this table and the server uses it to tell a screen navigation from an API call.
 */
export const routes = {
  login: { path: '/login' },
  instances: { path: '/instances' },
  singleInstance: { path: '/instances/:id' },
  createInstance: { path: '/instances/create' },
  editConfiguration: { path: '/instances/:id/configuration' },
  instanceScript: { path: '/instances/:id/script' },
  instanceDatabaseBackups: { path: '/instances/:id/backups/database' },
  instanceFileBackups: { path: '/instances/:id/backups/files' },
  instanceGraphs: { path: '/graphs' },
  instanceCreationGraph: { path: '/graphs/instance-creation' },
  instancesUpdate: { path: '/instances-update' },
  groups: { path: '/groups' },
  group: { path: '/groups/:id' },
  logs: { path: '/logs' },
  backups: { path: '/backups' },
  clients: { path: '/clients' },
  profile: { path: '/profile' },
  'admin-users': { path: '/admin/users', role: 'admin' },
  'admin-user': { path: '/admin/users/:id', role: 'admin' },
  // SPEC §2: the route carries no role requirement (the page itself sends regular users on).
  debug: { path: '/debug' },
  'admin-audit': { path: '/admin/audit', role: 'admin' },
  'admin-hosts': { path: '/admin/hosts', role: 'admin' },
} as const satisfies Record<string, { path: string; role?: Role }>;

export type RouteName = keyof typeof routes;

/** Fills a route's `:param` placeholders: `routePath('group', { id: '7' })` → `/groups/7`. */
export function routePath(name: RouteName, params: Record<string, string> = {}): string {
  return routes[name].path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
}
