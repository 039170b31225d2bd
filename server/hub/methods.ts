import { hasRole } from '../../contracts/roles';
import { HubError, type GroupMethod, type HubPrincipal } from './hub';

/** The group names events are published to; the Join/Leave methods below resolve to these. */
export const hubGroupNames = {
  instances: 'instances',
  instance: (id: string) => `instance:${id}`,
  /** null: the caller's whole log scope (JoinLogs(null)). */
  logs: (instanceId: string | null) => `logs:${instanceId ?? 'all'}`,
  backups: (instanceId: string | null) => `backups:${instanceId ?? 'all'}`,
  users: 'users',
  groups: 'groups',
};

/** Decides whether a principal may see one instance: the same rule as the HTTP API's. */
export type InstanceAccess = (principal: HubPrincipal, instanceId: string) => Promise<boolean> | boolean;

function instanceIdArg(args: unknown[], nullable: boolean): string | null {
  const [id] = args;
  if (args.length > 1) throw new HubError('Expected at most one argument.');
  if (id === undefined || id === null) {
    if (nullable) return null;
    throw new HubError('An instance id is required.');
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) throw new HubError('The instance id must be a string.');
  return id;
}

function noArgs(args: unknown[]) {
  if (args.length > 0) throw new HubError('This method takes no arguments.');
}

function adminOnly(principal: HubPrincipal) {
  if (!hasRole(principal, 'admin')) throw new HubError('Forbidden');
}

/**
 * Join{Name}/Leave{Name} of DESIGN §8. Joining checks access exactly like the HTTP API:
 * instance-scoped groups through `canSeeInstance`, the user list for admins only; JoinLogs(null)
 * is open to everyone, its events carrying only the entries each receiver may see.
 */
export function groupMethods(canSeeInstance: InstanceAccess): GroupMethod[] {
  const visibleInstance = async (principal: HubPrincipal, id: string | null) => {
    if (id === null) return;
    if (!(await canSeeInstance(principal, id))) throw new HubError('Forbidden');
  };
  return [
    { name: 'Instances', resolveGroup: (_p, args) => (noArgs(args), hubGroupNames.instances) },
    {
      name: 'Instance',
      resolveGroup: async (principal, args) => {
        const id = instanceIdArg(args, false)!;
        await visibleInstance(principal, id);
        return hubGroupNames.instance(id);
      },
    },
    {
      name: 'Logs',
      resolveGroup: async (principal, args) => {
        // null is anyone's whole scope: what each receives is cut to it when the entries go out.
        const id = instanceIdArg(args, true);
        await visibleInstance(principal, id);
        return hubGroupNames.logs(id);
      },
    },
    {
      name: 'Backups',
      resolveGroup: async (principal, args) => {
        const id = instanceIdArg(args, true);
        await visibleInstance(principal, id);
        return hubGroupNames.backups(id);
      },
    },
    { name: 'Users', resolveGroup: (principal, args) => (noArgs(args), adminOnly(principal), hubGroupNames.users) },
    { name: 'Groups', resolveGroup: (_p, args) => (noArgs(args), hubGroupNames.groups) },
  ];
}
