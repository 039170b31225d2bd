import { Type, type Static } from 'typebox';
import { PageQuery } from './page';
import { Role } from './auth';

// /admin/users (admin only), DESIGN §10.

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  emailConfirmed: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
  lastLoginAt: Type.Union([Type.String(), Type.Null()]),
  /** When the account's last sign-in lockout in force ends (lockouts are per client address); null when none is. */
  lockedUntil: Type.Union([Type.String(), Type.Null()]),
  /** Failed sign-ins still counting towards a lockout, from every address, since the last success or unlock. */
  failedSignIns: Type.Integer(),
});
export type User = Static<typeof User>;

export const UsersQuery = Type.Object(
  { ...PageQuery.properties, role: Type.Optional(Role), disabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const CreateUserRequest = Type.Object(
  { email: Type.String({ maxLength: 256 }), password: Type.String({ maxLength: 1024 }), role: Role },
  { additionalProperties: false },
);
export type CreateUserRequest = Static<typeof CreateUserRequest>;

/** PUT /admin/users/{id}: change the role or disable/enable. Disabling ends the user's sessions. */
export const UpdateUserRequest = Type.Object(
  { role: Type.Optional(Role), disabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type UpdateUserRequest = Static<typeof UpdateUserRequest>;

export const ChangePasswordRequest = Type.Object(
  { userId: Type.String({ minLength: 1, maxLength: 64 }), newPassword: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);
export type ChangePasswordRequest = Static<typeof ChangePasswordRequest>;

/** What POST /admin/users/change-password and disabling answer: how many sessions were ended. */
export const SessionsEnded = Type.Object({ sessionsEnded: Type.Integer() });
export type SessionsEnded = Static<typeof SessionsEnded>;

/** POST /admin/users/{id}/unlock: how many client addresses the account was locked for. */
export const UnlockResult = Type.Object({ locksLifted: Type.Integer() });
export type UnlockResult = Static<typeof UnlockResult>;

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
  userEmail: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  /** What the target is called now, when it is an instance, group, user or backup that still exists. */
  targetName: Type.Union([Type.String(), Type.Null()]),
  /** The console screen of the target (a routes path), while it exists. */
  targetLink: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  detail: Type.Unknown(),
  ip: Type.Union([Type.String(), Type.Null()]),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const OutboxMessage = Type.Object({
  id: Type.String(),
  at: Type.String(),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  sent: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type OutboxMessage = Static<typeof OutboxMessage>;
