import { Type } from 'typebox';
import { pgDefaultDatabase, pgOwnerRole } from '../../contracts/databases';
import { ConnectionInfo, ConnectionSecret, etcdOwnerUser, InstanceMember } from '../../contracts/instances';
import { Problem } from '../../contracts/problem';
import { hasRole } from '../../contracts/roles';
import { audited } from '../authz/audited';
import { clusterSpecOf, findInstanceRow, memberPortsOf } from '../db/instances';
import { etcdOwnerPassword, rotateEtcdOwnerPassword } from '../engines/etcdAuth';
import { pgSuperuserPassword, pgSuperuserTarget } from '../engines/pg';
import { pgOwnerPassword, rotateOwnerPassword } from '../engines/pgRoles';
import { EngineError } from '../engines/processRunner';
import { principalOf } from '../http/auth';
import { visibleInstance, type InstanceRoutes } from '../http/instanceAccess';
import { pgProblem } from '../http/pgProblem';
import { HttpProblem } from '../http/problems';
import { EmptyBody, IdParams, tags } from './instances';

const SecretQuery = Type.Object({ role: Type.Optional(Type.Enum(['owner', 'superuser'])) }, { additionalProperties: false });

/** The user people connect as, per engine: pg's owner role, etcd's owner user. */
const ownerOf = { pg: pgOwnerRole, etcd: etcdOwnerUser } as const;

/**
 * /instances/{id}/connection (DESIGN §10, §11): how group members connect to their instance, as the
 * owner (pg's owner role, etcd's owner user), and the passwords behind it. etcd's root user is the
 * control plane's alone: nobody reveals it.
 */
export const instanceConnectionRoutes: InstanceRoutes = async (app, { ctx, authz, service }) => {
  const visible = visibleInstance(ctx.db, authz);

  app.get(
    '/:id/connection',
    { config: { access: 'user' }, schema: { tags, summary: 'How to connect as the owner (without the password)', params: IdParams, response: { 200: ConnectionInfo, 404: Problem } } },
    async (request) => {
      const { id, type, host, port } = await visible(request, request.params.id);
      const row = (await findInstanceRow(ctx.db, id))!;
      if (type === 'pg') {
        const cluster = clusterSpecOf(row);
        if (cluster) {
          // The read-write address is the cluster's own: it follows the leader through a failover.
          const members = [port, ...memberPortsOf(row).map((m) => m.port)].map((p) => `${host}:${p}`);
          const uri = `postgresql://${pgOwnerRole}@${host}:${cluster.readWritePort}/${pgDefaultDatabase}`;
          return {
            host,
            port: cluster.readWritePort,
            user: pgOwnerRole,
            database: pgDefaultDatabase,
            uri,
            command: `psql '${uri}'`,
            endpoints: members,
            readWrite: `${host}:${cluster.readWritePort}`,
            readOnly: `${host}:${cluster.readOnlyPort}`,
            multiHostUri: `postgresql://${pgOwnerRole}@${members.join(',')}/${pgDefaultDatabase}?target_session_attrs=read-write`,
          };
        }
        const uri = `postgresql://${pgOwnerRole}@${host}:${port}/${pgDefaultDatabase}`;
        return { host, port, user: pgOwnerRole, database: pgDefaultDatabase, uri, command: `psql '${uri}'`, endpoints: [`${host}:${port}`] };
      }
      const endpoints = [port, ...memberPortsOf(row).map((m) => m.port)].map((p) => `http://${host}:${p}`);
      const uri = endpoints[0];
      // etcdctl asks for the password when --user names none, so it never reaches the shell's history;
      // given every member, it carries on through the loss of any of them.
      return {
        host,
        port,
        user: etcdOwnerUser,
        database: null,
        uri,
        command: `etcdctl --endpoints=${endpoints.join(',')} --user=${etcdOwnerUser} get --prefix --keys-only ''`,
        endpoints,
      };
    },
  );

  app.get(
    '/:id/members',
    { config: { access: 'user' }, schema: { tags, summary: 'Each member of the instance as it is now: role, state, address, raft index or lag', params: IdParams, response: { 200: Type.Array(InstanceMember), 404: Problem } } },
    async (request) => {
      const { id } = await visible(request, request.params.id);
      const row = (await findInstanceRow(ctx.db, id))!;
      if (row.status === 'unInitialized') return [];
      return service.members(row);
    },
  );

  app.post(
    '/:id/connection/secret',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "The owner's password for members of the instance's group; ?role=superuser pg's superuser's, for admins only (audited)",
        params: IdParams,
        querystring: SecretQuery,
        body: EmptyBody,
        response: { 200: ConnectionSecret, 403: Problem, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      const superuser = request.query.role === 'superuser';
      const note = superuser
        ? { action: 'instances.connection.secret.superuser', target: instance.id, detail: { name: instance.name, dangerous: true } }
        : { action: 'instances.connection.secret', target: instance.id, detail: { name: instance.name, role: ownerOf[instance.type] } };
      return audited(ctx, request, note, async () => {
        // The superuser reaches the host's files and programs: people work as the owner role (DESIGN §11).
        if (superuser && !hasRole(principalOf(request), 'admin')) throw new HttpProblem(403, "Only admins may reveal the superuser's password.");
        const rt = service.runtime((await findInstanceRow(ctx.db, instance.id))!);
        if (superuser) {
          if (instance.type === 'etcd') throw new HttpProblem(409, "etcd's root user is Warden's alone: its password is not revealed.");
          try {
            return { password: pgSuperuserPassword(rt) };
          } catch {
            throw new HttpProblem(409, 'The instance is not initialized yet: it has no password.');
          }
        }
        const password = instance.type === 'pg' ? pgOwnerPassword(rt) : etcdOwnerPassword(rt);
        if (password === null) throw new HttpProblem(409, `The instance has no ${instance.type === 'pg' ? 'owner role' : 'owner user'} yet: it is made when the instance starts, so start (or restart) it once.`);
        return { password };
      });
    },
  );

  app.post(
    '/:id/connection/rotate',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "A new password for the owner (the old one stops working); the instance must be running (audited)",
        params: IdParams,
        body: EmptyBody,
        response: { 200: ConnectionSecret, 404: Problem, 409: Problem },
      },
    },
    async (request) => {
      const instance = await visible(request, request.params.id);
      return audited(ctx, request, { action: 'instances.connection.rotate', target: instance.id, detail: { name: instance.name, role: ownerOf[instance.type] } }, async () => {
        if (instance.status !== 'running') throw new HttpProblem(409, 'The instance is not running: start it to rotate the password.');
        const rt = service.runtime((await findInstanceRow(ctx.db, instance.id))!);
        if (instance.type === 'pg') return { password: await pgProblem(() => rotateOwnerPassword(pgSuperuserTarget(rt))) };
        try {
          return { password: await rotateEtcdOwnerPassword(rt) };
        } catch (error) {
          // A member listed as running that does not answer (crashed, stopping): its state is the problem.
          if (error instanceof EngineError) throw new HttpProblem(409, `${error.message}: try again once it runs.`);
          throw error;
        }
      });
    },
  );
};
