import { Type, type Static } from 'typebox';
import { PageQuery } from './page';

// /groups, DESIGN §5 and §10.

/** A group's limits (DESIGN §10): null is unlimited. */
export const GroupQuota = Type.Object({
  maxInstances: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  maxBackupBytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});
export type GroupQuota = Static<typeof GroupQuota>;

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

export const GroupsQuery = PageQuery;

export const GroupRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** Absent keeps the quota as it is; each absent or null field inside is unlimited. */
    quota: Type.Optional(GroupQuotaRequest),
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
