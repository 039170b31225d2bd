import { Type, type Static } from 'typebox';

// /instances/{id}/databases and /instances/{id}/roles (DESIGN §10, §11): PostgreSQL databases and
// roles made through Warden, by the control plane as superuser, checked and audited.

/** The role people connect as: owner of the default database, never a superuser (DESIGN §11). */
export const pgOwnerRole = 'app';
/** The database every instance is created with, owned by the owner role. */
export const pgDefaultDatabase = 'app';

/** Names Warden accepts for databases and roles: plain lowercase identifiers, never pg_*. */
export const pgNamePattern = '^[a-z_][a-z0-9_]{0,62}$';
const PgName = Type.String({ pattern: pgNamePattern, maxLength: 63 });

export const Database = Type.Object({
  name: Type.String(),
  owner: Type.String(),
  sizeBytes: Type.Integer(),
  /** The instance's default database (owned by the owner role); it cannot be dropped. */
  isDefault: Type.Boolean(),
  /** postgres: the control plane's; it cannot be dropped either. */
  system: Type.Boolean(),
});
export type Database = Static<typeof Database>;

export const CreateDatabaseRequest = Type.Object(
  {
    name: PgName,
    /** The owner role (the default) or a role made through Warden. */
    owner: Type.Optional(PgName),
  },
  { additionalProperties: false },
);
export type CreateDatabaseRequest = Static<typeof CreateDatabaseRequest>;

export const DbRole = Type.Object({
  name: Type.String(),
  login: Type.Boolean(),
  superuser: Type.Boolean(),
  /** The instance's owner role (connection details, rotate). */
  owner: Type.Boolean(),
  /** Made through Warden: only these may be changed, dropped or granted. */
  managed: Type.Boolean(),
  /** The roles this one is a member of. */
  memberOf: Type.Array(Type.String()),
});
export type DbRole = Static<typeof DbRole>;

const RolePassword = Type.String({ minLength: 8, maxLength: 200 });
const MemberOf = Type.Array(PgName, { maxItems: 50, uniqueItems: true });

export const CreateRoleRequest = Type.Object(
  {
    name: PgName,
    login: Type.Boolean(),
    password: Type.Optional(RolePassword),
    memberOf: Type.Optional(MemberOf),
  },
  { additionalProperties: false },
);
export type CreateRoleRequest = Static<typeof CreateRoleRequest>;

export const UpdateRoleRequest = Type.Object(
  {
    newName: Type.Optional(PgName),
    password: Type.Optional(RolePassword),
    login: Type.Optional(Type.Boolean()),
    /** The complete list: memberships not named are revoked. */
    memberOf: Type.Optional(MemberOf),
  },
  { additionalProperties: false },
);
export type UpdateRoleRequest = Static<typeof UpdateRoleRequest>;

export const DatabaseParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }), name: Type.String({ minLength: 1, maxLength: 63 }) },
  { additionalProperties: false },
);
export const RoleParams = DatabaseParams;
