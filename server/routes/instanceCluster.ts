import { Type } from 'typebox';
import { ClusterHistoryEntry, ClusterTiming, FailoverRequest, SwitchoverRequest, clusterPresets, worstCaseFailoverSeconds } from '../../contracts/clusters';
import { Instance } from '../../contracts/instances';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import { findInstanceRow } from '../db/instances';
import { clusterHistory } from '../engines/pgCluster';
import { principalOf } from '../http/auth';
import { visibleInstance, type InstanceRoutes } from '../http/instanceAccess';
import { HttpProblem } from '../http/problems';
import { EmptyBody, IdParams, tags } from './instances';

const MemberParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }), ordinal: Type.Integer({ minimum: 1, maximum: 5 }) },
  { additionalProperties: false },
);
const accepted = { 202: Instance, 400: Problem, 403: Problem, 404: Problem, 409: Problem };

/**
 * A PostgreSQL cluster's operations (DESIGN §12): switchover for the group's members, failover for
 * admins (it may lose what the old leader had not sent), pausing automatic failover, and restarting
 * or rebuilding one member. Each is an operation like a restart, scoped and audited the same way.
 */
export const instanceClusterRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);

  app.post(
    '/:id/cluster/switchover',
    { config: { access: 'user' }, schema: { tags, summary: 'Hand the lead to another member (now or at scheduledAt); refused onto a lagging one unless forced', params: IdParams, body: SwitchoverRequest, response: accepted } },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const body = request.body ?? {};
      const result = await audited(ctx, request, { action: 'instances.cluster.switchover', target: instance.id, detail: { name: instance.name, ...body } }, () =>
        service.switchover(instance.id, body),
      );
      return reply.code(202).send(result);
    },
  );

  app.delete(
    '/:id/cluster/switchover',
    { config: { access: 'user' }, schema: { tags, summary: 'Cancel the switchover scheduled for a time to come (409 when none is)', params: IdParams, response: accepted } },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const result = await audited(ctx, request, { action: 'instances.cluster.switchover.cancel', target: instance.id, detail: { name: instance.name } }, () => service.cancelSwitchover(instance.id));
      return reply.code(202).send(result);
    },
  );

  app.post(
    '/:id/cluster/failover',
    { config: { access: 'user' }, schema: { tags, summary: 'Make a member the leader whatever the others say (admins; may lose commits the old leader had not sent)', params: IdParams, body: FailoverRequest, response: accepted } },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const result = await audited(ctx, request, { action: 'instances.cluster.failover', target: instance.id, detail: { name: instance.name, candidate: request.body.candidate, dangerous: true } }, () => {
        if (!hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, 'Only admins may force a failover: it may lose what the old leader had not sent.');
        return service.failover(instance.id, request.body.candidate);
      });
      return reply.code(202).send(result);
    },
  );

  // The operations that name only the instance: one shape, each scoped, audited and answered 202.
  const instanceOperations: [string, string, string, (id: string) => Promise<Instance>][] = [
    ['cluster/pause', 'instances.cluster.pause', 'Pause automatic failover (maintenance): Patroni leaves every member as it is', (id) => service.setFailoverPaused(id, true)],
    ['cluster/resume', 'instances.cluster.resume', 'Resume automatic failover', (id) => service.setFailoverPaused(id, false)],
    ['etcd/compact', 'instances.etcd.compact', "etcd: drop the history before the current revision (etcd's compaction)", (id) => service.etcdUpkeep(id, 'compact')],
    ['etcd/defragment', 'instances.etcd.defragment', "etcd: rewrite each member's backend file without its free space, then disarm a NOSPACE alarm", (id) => service.etcdUpkeep(id, 'defragment')],
    ['members', 'instances.members.add', "Add a member, one at a time up to 5: etcd's member add, or a PostgreSQL replica that Patroni copies from the leader", (id) => service.addMember(id)],
  ];
  for (const [path, action, summary, run] of instanceOperations) {
    app.post(`/:id/${path}`, { config: { access: 'user' }, schema: { tags, summary, params: IdParams, body: EmptyBody, response: accepted } }, async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const result = await audited(ctx, request, { action, target: instance.id, detail: { name: instance.name } }, () => run(instance.id));
      return reply.code(202).send(result);
    });
  }

  for (const [action, summary] of [
    ['restart', "Restart one member's postgres through its Patroni"],
    ['reinitialize', 'Rebuild one replica as a fresh copy of the leader'],
  ] as const) {
    app.post(`/:id/members/:ordinal/${action}`, { config: { access: 'user' }, schema: { tags, summary, params: MemberParams, body: EmptyBody, response: accepted } }, async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const { ordinal } = request.params;
      const result = await audited(ctx, request, { action: `instances.members.${action}`, target: instance.id, detail: { name: instance.name, member: ordinal } }, () =>
        service.actOnMember(instance.id, ordinal, action),
      );
      return reply.code(202).send(result);
    });
  }

  app.delete(
    '/:id/members/:ordinal',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Remove the last member: etcd's member remove, refused when the members left could not reach a quorum; a PostgreSQL replica, refused while it leads or when two would not be left",
        params: MemberParams,
        response: accepted,
      },
    },
    async (request, reply) => {
      const instance = await visible(request, request.params.id);
      const result = await audited(ctx, request, { action: 'instances.members.remove', target: instance.id, detail: { name: instance.name, member: request.params.ordinal } }, () =>
        service.removeMember(instance.id, request.params.ordinal),
      );
      return reply.code(202).send(result);
    },
  );

  app.get(
    '/:id/cluster/history',
    { config: { access: 'user' }, schema: { tags, summary: "The cluster's timelines from Patroni: each failover or switchover, when and why", params: IdParams, response: { 200: Type.Array(ClusterHistoryEntry), 404: Problem } } },
    async (request) => {
      const { id } = await visible(request, request.params.id);
      const row = (await findInstanceRow(ctx.db, id))!;
      const rt = service.runtime(row);
      if (!rt.cluster || row.status === 'unInitialized') return [];
      return clusterHistory(rt);
    },
  );

  app.get(
    '/:id/cluster/timing',
    { config: { access: 'user' }, schema: { tags, summary: "The cluster's failover timing: its preset's values and their computed worst case (measured times are in the history)", params: IdParams, response: { 200: ClusterTiming, 404: Problem, 409: Problem } } },
    async (request) => {
      const { id } = await visible(request, request.params.id);
      const spec = service.runtime((await findInstanceRow(ctx.db, id))!).cluster;
      if (!spec) throw new HttpProblem(409, 'This instance is not a PostgreSQL cluster.');
      const preset = clusterPresets[spec.preset];
      return { preset: spec.preset, synchronous: spec.synchronous, ...preset, worstCaseSeconds: worstCaseFailoverSeconds(preset) };
    },
  );
};
