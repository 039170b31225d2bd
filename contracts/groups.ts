import { Type, type Static } from 'typebox';
import { PageQuery } from './page';

// /groups, DESIGN §5 and §10.

export const Group = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  memberCount: Type.Integer(),
  instanceCount: Type.Integer(),
  createdAt: Type.String(),
});
export type Group = Static<typeof Group>;

export const GroupsQuery = PageQuery;

export const GroupRequest = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 80 }), description: Type.Optional(Type.String({ maxLength: 1000 })) },
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
