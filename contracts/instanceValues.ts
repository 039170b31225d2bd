// Instance vocabulary without TypeBox, so the browser may import the values (DESIGN §5).

export const instanceTypes = ['pg', 'etcd'] as const;
export type InstanceType = (typeof instanceTypes)[number];
/** unknown: its host is lost, so nobody can tell (never shown as stopped: it may well run on). */
export const instanceStatuses = ['unInitialized', 'offline', 'stopped', 'running', 'unknown'] as const;
export type InstanceStatus = (typeof instanceStatuses)[number];
export const healthLevels = ['good', 'warn', 'error'] as const;
export type HealthLevel = (typeof healthLevels)[number];
/** What an instance should be doing; the supervisor moves `status` toward it. */
export const desiredStates = ['running', 'stopped'] as const;
export type DesiredState = (typeof desiredStates)[number];
export const operationKinds = [
  'create',
  'start',
  'stop',
  'restart',
  'reload',
  'configure',
  'clone',
  'update',
  'delete',
  // A PostgreSQL cluster's (Patroni's) own.
  'switchover',
  'failover',
  'pause',
  'resume',
  'restartMember',
  'reinitializeMember',
  // An etcd instance's upkeep.
  'compact',
  'defragment',
  'addMember',
  'removeMember',
] as const;
export type OperationKind = (typeof operationKinds)[number];

/** DESIGN §5: 3–40 characters, lower-case letters, digits and '-', starting with a letter. */
export const instanceNamePattern = '^[a-z][a-z0-9-]{2,39}$';

/** Why a name cannot be used, or null; the uniqueness check is the server's. */
export function instanceNameProblem(name: string): string | null {
  if (name.length < 3) return 'The name must have at least 3 characters.';
  if (name.length > 40) return 'The name must have at most 40 characters.';
  if (!/^[a-z]/.test(name)) return 'The name must start with a lower-case letter.';
  if (!/^[a-z0-9-]+$/.test(name)) return 'The name may only hold lower-case letters, digits and -.';
  if (name.endsWith('-')) return 'The name must not end with -.';
  return null;
}

export const instanceSortFields = ['name', 'createdAt', 'status', 'type', 'health', 'sizeBytes'] as const;

export const graphBuckets = ['day', 'week', 'month'] as const;
export type GraphBucket = (typeof graphBuckets)[number];
