import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { GroupRef } from '../../contracts/auth';
import {
  AddMembersRequest,
  DeleteGroupQuery,
  Group,
  GroupMember,
  GroupRequest,
  type GroupLimitsRequest,
  type GroupQuotaRequest,
} from '../../contracts/groups';
import type { GroupChangedPayload } from '../../contracts/hub';
import { Page, PageQuery } from '../../contracts/page';
import { Problem } from '../../contracts/problem';
import { audited } from '../authz/audited';
import type { Authorization } from '../authz/authorization';
import type { AppContext } from '../context';
import * as groups from '../db/groups';
import { pageWindow, sortKeys } from '../db/paging';
import { defaultLimits } from '../engines/confinement';
import { principalOf } from '../http/auth';
import { HttpProblem, validationProblem, validationTitle } from '../http/problems';
import { hubGroupNames } from '../hub/methods';
import { keepGroupLimits, keepLimitsOfGroup } from '../instances/groupLimits';

const tags = ['groups'];

const GroupsListQuery = Type.Object(
  { ...PageQuery.properties, sort: Type.Optional(Type.Enum(sortKeys(groups.groupSortFields))) },
  { additionalProperties: false },
);
const MembersQuery = Type.Object(
  { ...PageQuery.properties, sort: Type.Optional(Type.Enum(sortKeys(groups.memberSortFields))) },
  { additionalProperties: false },
);
const InstancesQuery = Type.Object(
  { page: PageQuery.properties.page, pageSize: PageQuery.properties.pageSize },
  { additionalProperties: false },
);
const id = Type.String({ minLength: 1, maxLength: 64 });
const GroupParams = Type.Object({ id }, { additionalProperties: false });
const MemberParams = Type.Object({ id, userId: id }, { additionalProperties: false });
// A group's instance list names them with their type and status; the instance itself is one click away.
const InstanceRef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});

function notFound(groupId: string): HttpProblem {
  return new HttpProblem(404, `No group has the id ${groupId}.`);
}

/** A group name with surrounding spaces dropped; nothing left is a validation error. */
function groupName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw validationProblem({ name: ['must not be blank'] });
  return trimmed;
}

/** /groups (DESIGN §5): admins manage groups and members; a regular user sees the groups they belong to. */
export const groupRoutes: FastifyPluginAsyncTypebox<{
  ctx: AppContext;
  authz: Authorization;
  instances: groups.GroupInstances;
}> = async (app, { ctx, authz, instances }) => {
  /**
   * GroupChanged goes to admins and the group's members only (an outsider must not learn of it),
   * plus `also`: the members a change has just removed, so their lists drop the group.
   */
  const publish = async (groupId: string, change: GroupChangedPayload['change'], also: string[] = []) =>
    ctx.bus.publish({
      event: 'GroupChanged',
      payload: { id: groupId, change } satisfies GroupChangedPayload,
      audience: { kind: 'scoped', groups: [hubGroupNames.groups], userIds: [...(await groups.memberIdsOfGroup(ctx.db, groupId)), ...also] },
    });

  const withInstanceCount = async (group: groups.GroupRecord) => ({
    ...group,
    instanceCount: await instances.instanceCountOfGroup(ctx.db, group.id),
    backupBytes: (await groups.groupUsage(ctx.db, group.id)).backupBytes,
    defaultLimits,
  });

  /** The quota as stored: an absent or null field is unlimited; an absent quota leaves it as it is. */
  const quotaOf = (quota: GroupQuotaRequest | undefined): groups.GroupQuota | undefined =>
    quota && { maxInstances: quota.maxInstances ?? null, maxBackupBytes: quota.maxBackupBytes ?? null };

  /** The process limits as stored: an absent or null field is the default; absent limits stay as they are. */
  const limitsOf = (limits: GroupLimitsRequest | undefined): groups.GroupLimits | undefined =>
    limits && { maxProcesses: limits.maxProcesses ?? null, maxOpenFiles: limits.maxOpenFiles ?? null, maxMemoryBytes: limits.maxMemoryBytes ?? null };

  /** The group if it exists and the caller may see it; otherwise 404, so outsiders learn nothing. */
  const visibleGroup = async (request: FastifyRequest, groupId: string) => {
    const group = (await authz.canSeeGroup(principalOf(request), groupId)) ? await groups.findGroup(ctx.db, groupId) : undefined;
    if (!group) throw notFound(groupId);
    return group;
  };

  const duplicateName = (name: string) =>
    new HttpProblem(409, `A group named ${name} already exists (names are compared ignoring case).`);

  app.get(
    '',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Groups the caller may see, paged; search matches the name',
        querystring: GroupsListQuery,
        response: { 200: Page(Group), 400: Problem },
      },
    },
    async (request) => {
      const { search, sort = 'name' } = request.query;
      const page = await groups.listGroups(ctx.db, {
        ids: await authz.visibleGroupIds(principalOf(request)),
        search,
        sort,
        window: pageWindow(request.query),
      });
      return { ...page, items: await Promise.all(page.items.map(withInstanceCount)) };
    },
  );

  app.post(
    '',
    {
      config: { access: 'admin' },
      schema: { tags, summary: 'Create a group', body: GroupRequest, response: { 201: Group, 400: Problem, 409: Problem } },
    },
    async (request, reply) => {
      const group = await audited(ctx, request, { action: 'groups.create', target: request.body.name }, async (note) => {
        const name = groupName(request.body.name);
        try {
          const quota = quotaOf(request.body.quota);
          const limits = limitsOf(request.body.limits);
          const created = await groups.createGroup(ctx.db, { name, description: request.body.description, quota, limits }, ctx.clock());
          note.target = created.id;
          note.detail = { name, ...(quota && { quota }), ...(limits && { limits }) };
          return created;
        } catch (error) {
          if (error instanceof groups.DuplicateGroupNameError) throw duplicateName(name);
          throw error;
        }
      });
      await publish(group.id, 'created');
      return reply.code(201).send(await withInstanceCount(group));
    },
  );

  app.get(
    '/all',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'Every group the caller may see, unpaged, for pickers', response: { 200: Type.Array(GroupRef) } },
    },
    async (request) => groups.listGroupRefs(ctx.db, await authz.visibleGroupIds(principalOf(request))),
  );

  app.get(
    '/:id',
    {
      config: { access: 'user' },
      schema: { tags, summary: 'One group', params: GroupParams, response: { 200: Group, 404: Problem } },
    },
    async (request) => withInstanceCount(await visibleGroup(request, request.params.id)),
  );

  app.put(
    '/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          "Rename a group, change its description, set its quota or its instances' process limits (admins; an absent description, " +
          'quota or limits stay). Every instance of the group keeps the new limits; a running one takes them at its next restart',
        params: GroupParams,
        body: GroupRequest,
        response: { 200: Group, 400: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const groupId = request.params.id;
      const group = await audited(ctx, request, { action: 'groups.update', target: groupId }, async (note) => {
        const name = groupName(request.body.name);
        const quota = quotaOf(request.body.quota);
        const limits = limitsOf(request.body.limits);
        note.detail = {
          name,
          ...(request.body.description !== undefined && { description: request.body.description }),
          ...(quota && { quota }),
          ...(limits && { limits }),
        };
        try {
          if (!(await groups.updateGroup(ctx.db, groupId, { name, description: request.body.description, quota, limits }))) {
            throw notFound(groupId);
          }
        } catch (error) {
          if (error instanceof groups.DuplicateGroupNameError) throw duplicateName(name);
          throw error;
        }
        if (limits) await keepLimitsOfGroup(ctx.instances, groupId);
        return (await groups.findGroup(ctx.db, groupId))!;
      });
      await publish(groupId, 'updated');
      return withInstanceCount(group);
    },
  );

  app.delete(
    '/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a group; one holding instances needs ?moveInstances=true, which leaves them in no group',
        params: GroupParams,
        querystring: DeleteGroupQuery,
        response: { 204: Type.Null(), 404: Problem, 409: Problem },
      },
    },
    async (request, reply) => {
      const groupId = request.params.id;
      // Read before the delete takes the memberships with it: they are told the group is gone.
      const formerMembers = await groups.memberIdsOfGroup(ctx.db, groupId);
      let moved: string[] = [];
      await audited(ctx, request, { action: 'groups.delete', target: groupId }, (note) =>
        // The count, the move and the delete commit together, so no instance is left pointing nowhere.
        ctx.db.transaction().execute(async (trx) => {
          const group = await groups.findGroup(trx, groupId);
          if (!group) throw notFound(groupId);
          const held = await instances.instanceCountOfGroup(trx, groupId);
          note.detail = { name: group.name, instances: held };
          if (held > 0 && !request.query.moveInstances) {
            throw new HttpProblem(
              409,
              `The group ${group.name} holds ${held} instance${held === 1 ? '' : 's'}: move them to other groups first, ` +
                'or delete with moveInstances=true to leave them in no group.',
            );
          }
          if (held > 0) {
            moved = await groups.instanceIdsOfGroup(trx, groupId);
            note.detail.movedInstances = await instances.moveInstancesOutOfGroup(trx, groupId);
          }
          await groups.deleteGroup(trx, groupId);
        }),
      );
      // In no group, they run with the defaults from their next start.
      for (const instanceId of moved) await keepGroupLimits(ctx.instances, instanceId);
      await publish(groupId, 'deleted', formerMembers);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/users',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Members of a group, paged; search matches the e-mail',
        params: GroupParams,
        querystring: MembersQuery,
        response: { 200: Page(GroupMember), 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const group = await visibleGroup(request, request.params.id);
      const { search, sort = 'email' } = request.query;
      return groups.listMembers(ctx.db, group.id, { search, sort, window: pageWindow(request.query) });
    },
  );

  app.post(
    '/:id/users',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Add users to a group (adding a member again changes nothing); answers the group',
        params: GroupParams,
        body: AddMembersRequest,
        response: { 200: Group, 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const groupId = request.params.id;
      const userIds = [...new Set(request.body.userIds)];
      const added = await audited(ctx, request, { action: 'groups.members.add', target: groupId, detail: { userIds } }, async (note) => {
        await visibleGroup(request, groupId);
        const unknown = await groups.unknownUserIds(ctx.db, userIds);
        if (unknown.length > 0) {
          throw new HttpProblem(400, `No user has the id ${unknown.join(', ')}.`, {
            title: validationTitle,
            errors: { userIds: unknown.map((userId) => `${userId} is not a user`) },
          });
        }
        const ids = await groups.addMembers(ctx.db, groupId, userIds, ctx.clock());
        note.detail = { userIds, added: ids };
        return ids;
      });
      if (added.length > 0) await publish(groupId, 'members');
      return withInstanceCount((await groups.findGroup(ctx.db, groupId))!);
    },
  );

  app.get(
    '/:id/available-users',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Users who are not members of a group yet, paged; search matches the e-mail',
        params: GroupParams,
        querystring: MembersQuery,
        response: { 200: Page(GroupMember), 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const group = await visibleGroup(request, request.params.id);
      const { search, sort = 'email' } = request.query;
      return groups.listNonMembers(ctx.db, group.id, { search, sort, window: pageWindow(request.query) });
    },
  );

  app.delete(
    '/:id/users/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Remove a member from a group',
        params: MemberParams,
        response: { 204: Type.Null(), 404: Problem },
      },
    },
    async (request, reply) => {
      const { id: groupId, userId } = request.params;
      await audited(ctx, request, { action: 'groups.members.remove', target: groupId, detail: { userId } }, async () => {
        await visibleGroup(request, groupId);
        if (!(await groups.removeMember(ctx.db, groupId, userId))) {
          throw new HttpProblem(404, `The user ${userId} is not a member of this group.`);
        }
      });
      await publish(groupId, 'members', [userId]);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/:id/instances',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "A group's instances, paged",
        params: GroupParams,
        querystring: InstancesQuery,
        response: { 200: Page(InstanceRef), 400: Problem, 404: Problem },
      },
    },
    async (request) => {
      const group = await visibleGroup(request, request.params.id);
      return instances.instancesOfGroup(ctx.db, group.id, pageWindow(request.query));
    },
  );
};
