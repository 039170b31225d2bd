import { Type, type Static } from 'typebox';
import { PageQuery } from './page';

// /groups, DESIGN §5 and §10.

/** A group's limits (DESIGN §10): null is unlimited. */
export const GroupQuota = Type.Object({
  maxInstances: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  maxBackupBytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});
export type GroupQuota = Static<typeof GroupQuota>;

const mebibyte = 1024 ** 2;

/** The bounds an admin may set each process limit within: whole numbers, memory in bytes. */
export const processLimitBounds = {
  maxProcesses: { min: 32, max: 65_536 },
  maxOpenFiles: { min: 256, max: 1_048_576 },
  maxMemoryBytes: { min: 256 * mebibyte, max: 1024 ** 4 },
} as const;

/**
 * The process limits of each of a group's instances (DESIGN §11): processes of the instance's user,
 * open files and address space per process; null is the server's default. A running instance
 * takes new limits at its next restart.
 */
export const GroupLimits = Type.Object({
  maxProcesses: Type.Union([Type.Integer(), Type.Null()]),
  maxOpenFiles: Type.Union([Type.Integer(), Type.Null()]),
  maxMemoryBytes: Type.Union([Type.Integer(), Type.Null()]),
});
export type GroupLimits = Static<typeof GroupLimits>;

/** What an instance gets where its group sets no limit; a null memory limit is none at all. */
export const DefaultLimits = Type.Object({
  maxProcesses: Type.Integer(),
  maxOpenFiles: Type.Integer(),
  maxMemoryBytes: Type.Union([Type.Integer(), Type.Null()]),
});
export type DefaultLimits = Static<typeof DefaultLimits>;

export const Group = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  memberCount: Type.Integer(),
  instanceCount: Type.Integer(),
  createdAt: Type.String(),
  quota: GroupQuota,
  /** Bytes of the group's instances' backups kept in storage: what maxBackupBytes limits. */
  backupBytes: Type.Integer(),
  limits: GroupLimits,
  /** The server's defaults, which a null field of `limits` stands for. */
  defaultLimits: DefaultLimits,
});
export type Group = Static<typeof Group>;

/** The largest quota values accepted: a million instances, a petabyte of backups. */
export const quotaLimits = { maxInstances: 1_000_000, maxBackupBytes: 1e15 } as const;

/** A quota as sent (admins only): an absent or null field is unlimited. */
export const GroupQuotaRequest = Type.Object(
  {
    maxInstances: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: quotaLimits.maxInstances }), Type.Null()])),
    maxBackupBytes: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: quotaLimits.maxBackupBytes }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type GroupQuotaRequest = Static<typeof GroupQuotaRequest>;

const limitField = ({ min, max }: { min: number; max: number }) =>
  Type.Optional(Type.Union([Type.Integer({ minimum: min, maximum: max }), Type.Null()]));

/** Process limits as sent (admins only): an absent or null field is the server's default. */
export const GroupLimitsRequest = Type.Object(
  {
    maxProcesses: limitField(processLimitBounds.maxProcesses),
    maxOpenFiles: limitField(processLimitBounds.maxOpenFiles),
    maxMemoryBytes: limitField(processLimitBounds.maxMemoryBytes),
  },
  { additionalProperties: false },
);
export type GroupLimitsRequest = Static<typeof GroupLimitsRequest>;

export const GroupsQuery = PageQuery;

export const GroupRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** Absent keeps the quota as it is; each absent or null field inside is unlimited. */
    quota: Type.Optional(GroupQuotaRequest),
    /** Absent keeps the limits as they are; each absent or null field inside is the default. */
    limits: Type.Optional(GroupLimitsRequest),
  },
  { additionalProperties: false },
);
export type GroupRequest = Static<typeof GroupRequest>;

/** DELETE /groups/{id}?moveInstances=true: without the flag a group with instances is refused (409). */
export const DeleteGroupQuery = Type.Object(
  { moveInstances: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const GroupMember = Type.Object({ id: Type.String(), email: Type.String(), role: Type.String() });
export type GroupMember = Static<typeof GroupMember>;

export const AddMembersRequest = Type.Object(
  { userIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 200 }) },
  { additionalProperties: false },
);
export type AddMembersRequest = Static<typeof AddMembersRequest>;
