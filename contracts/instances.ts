import { clusterPresetNames } from './clusters';
import { Type, type Static } from 'typebox';
import { PageQuery } from './page';
import {
  desiredStates,
  graphBuckets,
  healthLevels,
  instanceStatuses,
  instanceTypes,
  operationKinds,
  type InstanceStatus,
  type OperationKind,
} from './instanceValues';

export * from './instanceValues';

// /instances (DESIGN §5, §10): the wire shapes shared by the server and the browser.

const literals = <const T extends string>(values: readonly T[]) => Type.Enum([...values]);

export const HealthCheck = Type.Object({ name: Type.String(), level: literals(healthLevels), message: Type.String() });
export type HealthCheck = Static<typeof HealthCheck>;
export const Health = Type.Object({ level: literals(healthLevels), checks: Type.Array(HealthCheck) });
export type Health = Static<typeof Health>;

export const Operation = Type.Object({ kind: literals(operationKinds), startedAt: Type.String() });
export type Operation = Static<typeof Operation>;

export const Instance = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: literals(instanceTypes),
  status: literals(instanceStatuses),
  desiredState: literals(desiredStates),
  /** Why the instance is offline or unInitialized (the engine's words), else null. */
  statusReason: Type.Union([Type.String(), Type.Null()]),
  health: Health,
  groupId: Type.Union([Type.String(), Type.Null()]),
  groupName: Type.Union([Type.String(), Type.Null()]),
  engineVersion: Type.Union([Type.String(), Type.Null()]),
  host: Type.String(),
  /** The host that runs it (GET /hosts, admins); null until one takes it. */
  hostId: Type.Union([Type.String(), Type.Null()]),
  port: Type.Integer(),
  /** How many members the instance runs: 1, or an etcd cluster's 3 or 5. */
  members: Type.Integer(),
  description: Type.String(),
  createdAt: Type.String(),
  createdBy: Type.Union([Type.String(), Type.Null()]),
  lastBackupAt: Type.Union([Type.String(), Type.Null()]),
  operation: Type.Union([Operation, Type.Null()]),
  /** Goes up with every change: of two copies of an instance, keep the one with the higher version. */
  version: Type.Integer(),
  /** The data folder's size as last measured by the metrics collector (about once a minute); null before. */
  sizeBytes: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
});
export type Instance = Static<typeof Instance>;


export const InstancesQuery = Type.Object(
  {
    ...PageQuery.properties,
    type: Type.Optional(literals(instanceTypes)),
    status: Type.Optional(literals(instanceStatuses)),
    health: Type.Optional(literals(healthLevels)),
    /** A group id, or `none` for instances in no group. */
    groupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type InstancesQuery = Static<typeof InstancesQuery>;

const parameterValues = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 }), {
  maxProperties: 200,
});

export const CreateInstanceRequest = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    type: literals(instanceTypes),
    groupId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** Initial configuration, checked like PUT …/config. */
    parameters: Type.Optional(parameterValues),
    /** Members of the instance: 1 (default), 3 or 5 for an etcd cluster with quorum, 2 to 5 for a PostgreSQL cluster on Patroni. */
    members: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    /** PostgreSQL clusters: the etcd instance of the same group that keeps the leader lock. */
    dcsInstanceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** PostgreSQL clusters: a commit is acknowledged once a standby has it too (Patroni's synchronous_mode). */
    synchronous: Type.Optional(Type.Boolean()),
    /** PostgreSQL clusters: failover timing (contracts/clusters.ts); fast unless given. */
    failoverPreset: Type.Optional(literals(clusterPresetNames)),
    /** Admins: the host to make it on (GET /hosts); absent, the host with the most free capacity. */
    hostId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type CreateInstanceRequest = Static<typeof CreateInstanceRequest>;

export const UpdateInstanceRequest = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** Moving an instance between groups is an admin's call. */
    groupId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type UpdateInstanceRequest = Static<typeof UpdateInstanceRequest>;

export const ValidateNameRequest = Type.Object({ name: Type.String({ maxLength: 200 }) }, { additionalProperties: false });
export const ValidateNameResponse = Type.Object({ valid: Type.Boolean(), reason: Type.Optional(Type.String()) });
export type ValidateNameResponse = Static<typeof ValidateNameResponse>;

export const DeleteInstanceQuery = Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export const DeleteInstanceResponse = Type.Object({
  id: Type.String(),
  /** What happened to the instance's backups, in words an operator reads in the confirmation. */
  backups: Type.String(),
});
export type DeleteInstanceResponse = Static<typeof DeleteInstanceResponse>;

export const memberRoles = ['leader', 'sync_standby', 'replica', 'member'] as const;
export const memberStates = ['running', 'stopped', 'unreachable'] as const;
/** One member of an instance: a single instance has one, an etcd cluster 3 or 5. */
export const InstanceMember = Type.Object({
  /** 1-based: member 1 listens on the instance's own port. */
  ordinal: Type.Integer(),
  name: Type.String(),
  /** etcd: the raft leader, or a member; a single PostgreSQL process leads itself. */
  role: literals(memberRoles),
  state: literals(memberStates),
  host: Type.String(),
  port: Type.Integer(),
  /** Bytes of WAL a replica has not replayed yet (PostgreSQL); null where it does not apply. */
  lagBytes: Type.Union([Type.Integer(), Type.Null()]),
  /** Seconds since the WAL a replica last replayed was written on the leader (PostgreSQL's replay_lag); null where it does not apply or is not known. */
  lagSeconds: Type.Union([Type.Number(), Type.Null()]),
  /** A PostgreSQL member holds a parameter change that waits for its restart. */
  pendingRestart: Type.Boolean(),
  timeline: Type.Union([Type.Integer(), Type.Null()]),
  /** etcd: the member's raft index and its backend's size. */
  raftIndex: Type.Union([Type.Integer(), Type.Null()]),
  dbSizeBytes: Type.Union([Type.Integer(), Type.Null()]),
});
export type InstanceMember = Static<typeof InstanceMember>;

/** The user people get on an etcd instance: read and write on every key, never root (DESIGN §11). */
export const etcdOwnerUser = 'app';

export const ConnectionInfo = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  user: Type.Union([Type.String(), Type.Null()]),
  database: Type.Union([Type.String(), Type.Null()]),
  /** A connection string without the password. */
  uri: Type.String(),
  /** A shell command that connects as `user` and asks for the password (psql, etcdctl). */
  command: Type.String(),
  /** Every member's address (an etcd cluster's client URLs; one for a single member). */
  endpoints: Type.Array(Type.String()),
  /** A PostgreSQL cluster's stable addresses (HAProxy): the leader's, and the replicas'. */
  readWrite: Type.Optional(Type.String()),
  readOnly: Type.Optional(Type.String()),
  /** A PostgreSQL cluster's libpq URI naming every member, for clients that need no proxy. */
  multiHostUri: Type.Optional(Type.String()),
});
export type ConnectionInfo = Static<typeof ConnectionInfo>;
export const ConnectionSecret = Type.Object({ password: Type.String() });
export type ConnectionSecret = Static<typeof ConnectionSecret>;

// ---- Configuration ----

export const ConfigParameter = Type.Object({
  name: Type.String(),
  value: Type.String(),
  default: Type.Union([Type.String(), Type.Null()]),
  type: literals(['bool', 'integer', 'real', 'string', 'enum'] as const),
  unit: Type.Union([Type.String(), Type.Null()]),
  min: Type.Union([Type.Number(), Type.Null()]),
  max: Type.Union([Type.Number(), Type.Null()]),
  enumValues: Type.Union([Type.Array(Type.String()), Type.Null()]),
  apply: literals(['reload', 'restart'] as const),
  description: Type.String(),
  /** Who may set it (DESIGN §11): any group member, admins only, or nobody (Warden sets it). */
  policy: literals(['user', 'admin', 'managed'] as const),
  /** Whether the caller may change it. */
  editable: Type.Boolean(),
  /** Why the caller may not change it, when they may not. */
  reason: Type.Union([Type.String(), Type.Null()]),
});
export type ConfigParameter = Static<typeof ConfigParameter>;

export const InstanceConfig = Type.Object({
  /** 0 before the first saved change. */
  revision: Type.Integer(),
  parameters: Type.Array(ConfigParameter),
  /** Parameters saved but waiting for a restart to take effect. */
  pendingRestart: Type.Array(Type.String()),
});
export type InstanceConfig = Static<typeof InstanceConfig>;

export const UpdateConfigRequest = Type.Object(
  {
    parameters: parameterValues,
    /** Apply right away: reload for reload-only changes, restart when any change needs it. Default: reload only. */
    apply: Type.Optional(literals(['none', 'reload', 'restart'] as const)),
  },
  { additionalProperties: false },
);
export type UpdateConfigRequest = Static<typeof UpdateConfigRequest>;

export const UpdateConfigResponse = Type.Object({
  revision: Type.Integer(),
  /** Changed parameters a reload applies, and those that need a restart. */
  reload: Type.Array(Type.String()),
  restart: Type.Array(Type.String()),
  /** What was done with them: none, reloaded, restarted (the restart runs as an operation: 202 semantics). */
  applied: literals(['none', 'reloaded', 'restarting'] as const),
});
export type UpdateConfigResponse = Static<typeof UpdateConfigResponse>;

export const ConfigChange = Type.Object({ name: Type.String(), from: Type.Union([Type.String(), Type.Null()]), to: Type.String() });
export type ConfigChange = Static<typeof ConfigChange>;

export const ConfigRevision = Type.Object({
  revision: Type.Integer(),
  author: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  changes: Type.Array(ConfigChange),
  /** Every non-default parameter value saved through the console as of this revision. */
  parameters: Type.Record(Type.String(), Type.String()),
});
export type ConfigRevision = Static<typeof ConfigRevision>;

// ---- Clone, update, graphs ----

export const CloneRequest = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    backupId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** A clone of a running PostgreSQL instance may be a cluster of 2 to 5 members, as POST /instances makes. */
    members: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    dcsInstanceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    synchronous: Type.Optional(Type.Boolean()),
    failoverPreset: Type.Optional(literals(clusterPresetNames)),
    /** Admins, with backupId: the host to restore it on (GET /hosts); absent, the source's host. */
    hostId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type CloneRequest = Static<typeof CloneRequest>;

export const IsLatestResponse = Type.Object({
  latest: Type.Boolean(),
  engineVersion: Type.Union([Type.String(), Type.Null()]),
  latestVersion: Type.Union([Type.String(), Type.Null()]),
});
export type IsLatestResponse = Static<typeof IsLatestResponse>;

export const UpdatableInstance = Type.Object({
  instance: Instance,
  latestVersion: Type.String(),
});
export type UpdatableInstance = Static<typeof UpdatableInstance>;


export const GraphsQuery = Type.Object(
  {
    from: Type.String({ format: 'date', maxLength: 10 }),
    to: Type.String({ format: 'date', maxLength: 10 }),
    bucket: Type.Optional(literals(graphBuckets)),
    type: Type.Optional(literals(instanceTypes)),
  },
  { additionalProperties: false },
);
export type GraphsQuery = Static<typeof GraphsQuery>;

export const GraphPoint = Type.Object({
  /** The bucket's first day (YYYY-MM-DD, UTC; weeks start on Monday). */
  bucket: Type.String(),
  pg: Type.Integer(),
  etcd: Type.Integer(),
  total: Type.Integer(),
  /** Instances created up to the end of this bucket (deleted ones included: creations, not population). */
  cumulative: Type.Integer(),
});
export type GraphPoint = Static<typeof GraphPoint>;
export const GraphsResponse = Type.Object({
  bucket: literals(graphBuckets),
  from: Type.String(),
  to: Type.String(),
  points: Type.Array(GraphPoint),
});
export type GraphsResponse = Static<typeof GraphsResponse>;

// ---- Hub payloads (DESIGN §8) ----

export interface InstanceEventPayload {
  instance: Instance;
}
export interface InstanceStatusChangedPayload {
  id: string;
  status: InstanceStatus;
  previousStatus: InstanceStatus;
  statusReason: string | null;
  health: Health;
  /** The instance's version after this change (see Instance.version). */
  version: number;
}
export interface InstanceDeletedPayload {
  id: string;
}
export interface OperationCompletedPayload {
  instanceId: string;
  kind: OperationKind;
  ok: boolean;
  /** The failure in the engine's or the tool's words. */
  error: string | null;
  /** What the operation found worth telling (e.g. a reload's refused and pending parameters). */
  detail: string | null;
}
