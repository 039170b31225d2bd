import { registerHost } from '../../server/hosts/hostStore';
import { startCookieSession } from '../../server/auth/sessions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { addMembers, createGroup } from '../../server/db/groups';
import { insertInstance } from '../../server/db/instances';
import { recordRevision } from '../../server/instances/revisions';
import { addUser, goodPassword, origin, setup, type Harness } from './helpers';
import { inertEngine } from './instances/inertEngine';

// The access matrix: every route of the real OpenAPI document, called by four principals, must
// answer what its rule below declares. A new route fails this test until its rule is declared here,
// so nobody ships a call without deciding who may make it.

type Who = 'anonymous' | 'nonMember' | 'member' | 'admin';
const principals: readonly Who[] = ['anonymous', 'nonMember', 'member', 'admin'];
/** Whether a route needs a session at all, and the statuses each principal may get. */
interface Rule {
  needsSession: boolean;
  answers: Record<Who, readonly number[]>;
}

/** Everyone gets the same answer. */
const publicRoute = (...statuses: number[]): Rule => ({
  needsSession: false,
  answers: { anonymous: statuses, nonMember: statuses, member: statuses, admin: statuses },
});
/** Any signed-in user; lists inside are filtered, not refused. */
const signedIn = (...statuses: number[]): Rule => ({
  needsSession: true,
  answers: { anonymous: [401], nonMember: statuses, member: statuses, admin: statuses },
});
/** Admins only: regular users are refused whatever they name. */
const adminOnly = (...statuses: number[]): Rule => ({
  needsSession: true,
  answers: { anonymous: [401], nonMember: [403], member: [403], admin: statuses },
});
/** One group's resource: its members and admins see it; to anyone else it does not exist. */
const groupScoped = (...statuses: number[]): Rule => ({
  needsSession: true,
  answers: { anonymous: [401], nonMember: [404], member: statuses, admin: statuses },
});

/** The rule of every route, keyed `METHOD /path` as the OpenAPI document spells the path. */
const expectations: Record<string, Rule> = {
  'GET /healthz': publicRoute(200),
  'GET /api/openapi.json': publicRoute(200),

  // Public /auth calls with harmless sample bodies: unknown account, bad codes, closed registration.
  'GET /auth/options': publicRoute(200),
  'POST /auth/login': publicRoute(401),
  'POST /auth/refresh': publicRoute(401),
  'POST /auth/register': publicRoute(403),
  'GET /auth/confirmEmail': publicRoute(401),
  'POST /auth/resendConfirmationEmail': publicRoute(200),
  'POST /auth/forgotPassword': publicRoute(200),
  'POST /auth/resetPassword': publicRoute(400),
  'POST /auth/logout': signedIn(200),
  'GET /auth/me': signedIn(200),
  'GET /auth/check': signedIn(200),
  'POST /uihub/negotiate': signedIn(200),
  'GET /auth/profile': signedIn(200),
  'POST /auth/manage/2fa': signedIn(200),
  'GET /auth/manage/info': signedIn(200),
  'POST /auth/manage/info': signedIn(200),

  'POST /debug': adminOnly(200),
  'GET /admin/outbox': adminOnly(200),
  'GET /admin/audit': adminOnly(200),
  'GET /hosts': adminOnly(200),
  'PUT /hosts/{id}': adminOnly(200),
  'GET /admin/users': adminOnly(200),
  'POST /admin/users': adminOnly(201),
  'GET /admin/users/roles': adminOnly(200),
  'GET /admin/users/{id}': adminOnly(200),
  'PUT /admin/users/{id}': adminOnly(200),
  'POST /admin/users/change-password': adminOnly(200),
  'POST /admin/users/{id}/unlock': adminOnly(200),
  'POST /admin/users/{id}/reset-2fa': adminOnly(200),

  'GET /groups': signedIn(200),
  'POST /groups': adminOnly(201),
  'GET /groups/all': signedIn(200),
  'GET /groups/{id}': groupScoped(200),
  'PUT /groups/{id}': adminOnly(200),
  'DELETE /groups/{id}': adminOnly(204),
  'GET /groups/{id}/users': groupScoped(200),
  'POST /groups/{id}/users': adminOnly(200),
  'GET /groups/{id}/available-users': adminOnly(200),
  'DELETE /groups/{id}/users/{userId}': adminOnly(204),
  'GET /groups/{id}/instances': groupScoped(200),

  'GET /instances': signedIn(200),
  // Regular users create into their own groups only: the fixture's group is not the outsider's.
  'POST /instances': { needsSession: true, answers: { anonymous: [401], nonMember: [400], member: [202], admin: [202] } },
  'POST /instances/validate-name': signedIn(200),
  'GET /instances/graphs': signedIn(200),
  'GET /instances/updatable': signedIn(200),
  'GET /instances/{id}': groupScoped(200),
  'GET /instances/{id}/metrics': groupScoped(200),
  // A list of ids: one the caller may not see is left out of the answer, not refused.
  'GET /instances/sparklines': signedIn(200),
  'GET /api/statistics': signedIn(200),
  'PUT /instances/{id}': groupScoped(200),
  'DELETE /instances/{id}': groupScoped(200),
  'POST /instances/{id}/start': groupScoped(202),
  'POST /instances/{id}/stop': groupScoped(202),
  'POST /instances/{id}/restart': groupScoped(202),
  'POST /instances/{id}/reload-configuration': groupScoped(202),
  'POST /instances/{id}/update': groupScoped(202),
  'POST /instances/{id}/clone': groupScoped(202),
  // The engines here archive no WAL: the window says so, and what needs an archive is refused.
  'GET /instances/{id}/recovery-window': groupScoped(200),
  'POST /instances/{id}/restore-point': groupScoped(409),
  'POST /instances/{id}/restore-points': groupScoped(409),
  'GET /instances/{id}/pitr/settings': groupScoped(409),
  'POST /instances/{id}/pitr/drill': groupScoped(409),
  'POST /instances/{id}/pitr/verify': groupScoped(409),
  'PUT /instances/{id}/pitr/settings': groupScoped(409),
  'GET /instances/{id}/is-latest': groupScoped(200),
  'GET /instances/{id}/connection': groupScoped(200),
  'GET /instances/{id}/members': groupScoped(200),
  // A PostgreSQL cluster's operations: the fixture is a single server, so past the access rule they
  // answer 409 (it is a single server, not a cluster), and its history is empty.
  'POST /instances/{id}/cluster/switchover': groupScoped(409),
  'DELETE /instances/{id}/cluster/switchover': groupScoped(409),
  'POST /instances/{id}/cluster/pause': groupScoped(409),
  'POST /instances/{id}/cluster/resume': groupScoped(409),
  'POST /instances/{id}/members/{ordinal}/restart': groupScoped(409),
  'POST /instances/{id}/members/{ordinal}/reinitialize': groupScoped(409),
  'GET /instances/{id}/cluster/history': groupScoped(200),
  'GET /instances/{id}/cluster/timing': groupScoped(409),
  'POST /instances/{id}/etcd/compact': groupScoped(409),
  // The fixture is a single PostgreSQL server: its members are neither added nor removed here.
  'POST /instances/{id}/members': groupScoped(409),
  'DELETE /instances/{id}/members/{ordinal}': groupScoped(409),
  'POST /instances/{id}/etcd/defragment': groupScoped(409),
  // A forced failover may lose commits: a group's members see the cluster but only admins may force it.
  'POST /instances/{id}/cluster/failover': { needsSession: true, answers: { anonymous: [401], nonMember: [404], member: [403], admin: [409] } },
  // Members get the owner role's password; ?role=superuser is an admin's (pgRoles.test.ts).
  'POST /instances/{id}/connection/secret': groupScoped(200),
  // These talk to the running server, which the inert engine does not run: past the access rule
  // they answer 409 (the instance does not answer), while outsiders still get 404.
  'POST /instances/{id}/connection/rotate': groupScoped(409),
  'GET /instances/{id}/databases': groupScoped(409),
  'POST /instances/{id}/databases': groupScoped(409),
  'DELETE /instances/{id}/databases/{name}': groupScoped(409),
  'GET /instances/{id}/roles': groupScoped(409),
  'POST /instances/{id}/roles': groupScoped(409),
  'PUT /instances/{id}/roles/{name}': groupScoped(409),
  'DELETE /instances/{id}/roles/{name}': groupScoped(409),
  'GET /instances/{id}/config': groupScoped(200),
  'PUT /instances/{id}/config': groupScoped(200),
  'GET /instances/{id}/config/revisions': groupScoped(200),
  'POST /instances/{id}/config/revisions/{revision}/restore': groupScoped(200),
  'GET /instances/{id}/logs': groupScoped(200),
  'GET /instances/{id}/logs/unique-handlers': groupScoped(200),

  // Backups are the instance's: the same scope, whoever took them. {backupId} is a backup of {id}.
  'GET /instances/{id}/backups': groupScoped(200),
  'GET /instances/{id}/backups/database': groupScoped(200),
  'GET /instances/{id}/backups/files': groupScoped(200),
  'POST /instances/{id}/backups/database/backup': groupScoped(202),
  'POST /instances/{id}/backups/files/backup': groupScoped(202),
  'DELETE /instances/{id}/backups/database/{backupId}': groupScoped(200),
  'DELETE /instances/{id}/backups/file/{backupId}': groupScoped(200),
  'GET /instances/{id}/backups/url/{backupId}': groupScoped(200),
  'POST /instances/{id}/backups/{backupId}/verify': groupScoped(202),
  'PUT /instances/{id}/backups/{backupId}/pin': groupScoped(200),
  'GET /instances/{id}/backups/schedule': groupScoped(200),
  'PUT /instances/{id}/backups/schedule': groupScoped(200),
  'POST /instances/{id}/backups/retention/preview': groupScoped(200),
  'GET /instances/{id}/script': groupScoped(200),
  'PUT /instances/{id}/script': groupScoped(200),
  'POST /instances/{id}/script': groupScoped(202),
  'GET /instances/{id}/script/runs': groupScoped(200),
  'GET /instances/{id}/script/schema': groupScoped(200),
  // The fixture names no run: members learn it does not exist, outsiders that the instance does not.
  'GET /instances/{id}/script/runs/{runId}': groupScoped(404),
  'POST /instances/{id}/script/runs/{runId}/cancel': groupScoped(404),
  'GET /backups': signedIn(200),
  // Logs: every signed-in user reads their own scope; naming an instance (as these samples do) is group-scoped.
  'GET /logs/log-levels': signedIn(200),
  'GET /logs/size': signedIn(200),
  'GET /logs/histogram': signedIn(200),
  'GET /logs/all': groupScoped(200),
  'GET /logs/export': groupScoped(200),
  'POST /logs/clear': groupScoped(200),
  // The signature is the credential: a valid link works for anyone, with or without a session.
  'GET /downloads/backups/{backupId}': publicRoute(200),
  // Client releases are anyone's to list and download; the fixture's releases folder is empty.
  'GET /client-versions/windows': signedIn(200),
  'GET /client-versions/containers': signedIn(200),
  'GET /client-versions/build': signedIn(200),
  'GET /client-versions/download/{version}': signedIn(404),
  'DELETE /client-versions/{version}': adminOnly(404),
};

/**
 * Routes the document leaves out (hide: true) that are still callable over HTTP. /uihub is hidden
 * too; it only speaks WebSocket, and hub.test.ts covers who may connect.
 */
const hiddenRoutes = ['GET /api/openapi.json', 'POST /uihub/negotiate'];

/** What one route's calls are made against: a fresh group holding the member and the target user. */
interface Fixture {
  groupId: string;
  target: { id: string; email: string };
  /** Distinct per call, for names and e-mails that must not clash. */
  unique(): string;
}

/** What one call is made against: its own instance and, for {backupId} routes, a backup of it. */
interface Subject {
  instanceId: string | null;
  backupId: string | null;
}

interface Sample {
  body?: unknown;
  query?: Record<string, string>;
}
/** Sample requests where a minimal body generated from the schema would not be a meaningful call. */
const samples: Record<string, (f: Fixture, s: Subject) => Sample | Promise<Sample>> = {
  'POST /auth/login': () => ({ body: { email: 'nobody@example.com', password: goodPassword } }),
  'POST /auth/refresh': () => ({ body: { refreshToken: 'not-a-refresh-token' } }),
  'POST /auth/register': (f) => ({ body: { email: `${f.unique()}@example.com`, password: goodPassword } }),
  'GET /auth/confirmEmail': (f) => ({ query: { userId: f.target.id, code: 'not-the-code' } }),
  'POST /auth/resendConfirmationEmail': () => ({ body: { email: 'nobody@example.com' } }),
  'POST /auth/forgotPassword': () => ({ body: { email: 'nobody@example.com' } }),
  'POST /auth/resetPassword': (f) => ({ body: { email: f.target.email, resetCode: 'not-the-code', newPassword: goodPassword } }),
  'POST /debug': () => ({ body: { action: 'ping' } }),
  'POST /uihub/negotiate': () => ({ query: { negotiateVersion: '1' } }),
  'POST /admin/users': (f) => ({ body: { email: `${f.unique()}@example.com`, password: goodPassword, role: 'regular' } }),
  'PUT /admin/users/{id}': () => ({ body: { role: 'regular' } }),
  'PUT /hosts/{id}': () => ({ body: { draining: false } }),
  'POST /admin/users/change-password': (f) => ({ body: { userId: f.target.id, newPassword: goodPassword } }),
  'POST /groups': (f) => ({ body: { name: f.unique() } }),
  'PUT /groups/{id}': (f) => ({ body: { name: f.unique() } }),
  'POST /groups/{id}/users': (f) => ({ body: { userIds: [f.target.id] } }),
  'POST /instances': (f) => ({ body: { name: f.unique(), type: 'etcd', groupId: f.groupId } }),
  'POST /instances/validate-name': () => ({ body: { name: 'some-name' } }),
  'GET /instances/graphs': () => ({ query: { from: '2030-01-01', to: '2030-01-31' } }),
  'GET /instances/sparklines': async (f) => ({ query: { ids: await instanceInGroup(f.groupId), name: 'cpu_percent' } }),
  'DELETE /instances/{id}': () => ({ query: { force: 'true' } }),
  'POST /instances/{id}/clone': (f) => ({ body: { name: f.unique() } }),
  'POST /instances/{id}/restore-point': (f) => ({ body: { name: f.unique(), target: 'latest' } }),
  'POST /instances/{id}/restore-points': () => ({ body: { name: 'before the migration' } }),
  'PUT /instances/{id}/pitr/settings': () => ({ body: { archiveTimeoutSeconds: 60, retentionDays: 7 } }),
  'PUT /instances/{id}/config': () => ({ body: { parameters: { work_mem: '8MB' } } }),
  'POST /instances/{id}/config/revisions/{revision}/restore': () => ({ body: { apply: 'none' } }),
  // The last good backup is deleted only with force.
  'DELETE /instances/{id}/backups/database/{backupId}': () => ({ query: { force: 'true' } }),
  'PUT /instances/{id}/backups/{backupId}/pin': () => ({ body: { pinned: true } }),
  'DELETE /instances/{id}/backups/file/{backupId}': () => ({ query: { force: 'true' } }),
  'PUT /instances/{id}/backups/schedule': () => ({ body: { enabled: true, cron: '0 3 * * *', timeZone: 'Europe/Berlin', keepLast: 7, keepDays: null } }),
  // An instance with no backup runs a script only on an empty copy asked for by name.
  'POST /instances/{id}/script': () => ({ body: { script: 'select 1', source: 'empty' } }),
  'GET /logs/all': async (f) => ({ query: { instanceId: await instanceInGroup(f.groupId) } }),
  'GET /logs/export': async (f) => ({ query: { instanceId: await instanceInGroup(f.groupId) } }),
  'POST /logs/clear': async (f) => ({ query: { instanceId: await instanceInGroup(f.groupId) } }),
  'GET /downloads/backups/{backupId}': async (_f, s) => {
    const { url } = await h.app.backups.downloadUrl(s.instanceId!, s.backupId!);
    return { query: Object.fromEntries(new URL(url).searchParams) };
  },
};

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  minItems?: number;
  minLength?: number;
  minimum?: number;
  format?: string;
}

/** The smallest value a schema accepts: required properties only, shortest strings, first choices. */
function minimal(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice) return minimal(choice[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, minimal(schema.properties?.[name] ?? {})]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimal(schema.items ?? {}));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'date-time') return '2030-01-01T00:00:00Z';
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
  }
}

interface Operation {
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

let h: Harness;
const engines = { pg: inertEngine('pg'), etcd: inertEngine('etcd') };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-rbac-'));
// The engine user must be able to pass through the data dir (mkdtemp makes it 0700).
fs.chmodSync(dataDir, 0o711);

/**
 * A running pg instance in the fixture's group, fresh for every call so one principal's stop or
 * delete does not change what the next one finds; two configuration revisions to restore between.
 */
async function instanceInGroup(groupId: string): Promise<string> {
  const id = randomUUID();
  const now = h.clock.now().toISOString();
  const port = 20000 + ++counter;
  await insertInstance(h.db, {
    id, name: `rbac-instance-${counter}`, type: 'pg', status: 'running', desired_state: 'running', status_reason: null,
    health_level: 'good', health_checks: '[]', group_id: groupId, engine_version: '15.0', port, peer_port: null,
    description: '', created_at: now, created_by: null, last_backup_at: null, operation_kind: null, operation_started_at: null,
  });
  const dir = path.join(dataDir, 'instances', id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'superuser.password'), 'secret\n');
  fs.writeFileSync(path.join(dir, 'owner.password'), 'secret\n');
  await recordRevision(h.db, id, null, h.clock.now(), { work_mem: '4MB' }, {});
  await recordRevision(h.db, id, null, h.clock.now(), { work_mem: '8MB' }, { work_mem: '4MB' });
  await engines.pg.start({ id, dir, port });
  return id;
}
/** A succeeded backup of the instance: a file backup for the routes that name the file kind. */
async function backupOf(instanceId: string, kind: 'database' | 'file'): Promise<string> {
  const { done } = await h.app.backups.take(instanceId, kind, 'manual', null);
  const backup = await done;
  if (backup.status !== 'succeeded') throw new Error(`The fixture's ${kind} backup failed: ${backup.error}`);
  return backup.id;
}
let routes: { key: string; method: string; path: string; operation: Operation }[];
const userIds = {} as Record<Exclude<Who, 'anonymous'>, string>;
let target: { id: string; email: string };
/** A host, as its agent registers it: draining it is an admin's call. */
let hostId: string;

beforeAll(async () => {
  h = await setup({ config: { dataDir }, engines, supervise: false });
  userIds.admin = (await addUser(h.db, 'admin@example.com', 'admin')).id;
  userIds.member = (await addUser(h.db, 'member@example.com')).id;
  userIds.nonMember = (await addUser(h.db, 'outsider@example.com')).id;
  target = { id: (await addUser(h.db, 'target@example.com')).id, email: 'target@example.com' };
  const facts = { name: 'host-1', address: '127.0.0.1', cores: 2, memoryBytes: 2 ** 30, diskFreeBytes: 2 ** 30, ports: { from: 15400, to: 15999 }, agentVersion: '1', heartbeatMs: 4000 };
  hostId = (await registerHost(h.db, facts, h.clock.now())).host.id;

  const document = (await h.app.inject({ url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
  routes = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      operation,
    })),
  );
  for (const key of hiddenRoutes) {
    const [method, path] = key.split(' ');
    routes.push({ key, method, path, operation: {} });
  }
});
afterAll(() => h.close());

let counter = 0;

async function call(route: (typeof routes)[number], who: Who, fixture: Fixture) {
  const instanceId = route.path.startsWith('/instances/{id}') || route.path.includes('{backupId}') ? await instanceInGroup(fixture.groupId) : null;
  const backupId = instanceId && route.path.includes('{backupId}') ? await backupOf(instanceId, route.path.includes('/file/') ? 'file' : 'database') : null;
  const sample = (await samples[route.key]?.(fixture, { instanceId, backupId })) ?? {};
  const bodySchema = route.operation.requestBody?.content['application/json']?.schema;
  const body = sample.body ?? (bodySchema ? minimal(bodySchema) : undefined);
  const query = sample.query ?? {};
  for (const parameter of route.operation.parameters ?? []) {
    if (parameter.in === 'query' && parameter.required && !(parameter.name in query)) {
      query[parameter.name] = String(minimal(parameter.schema));
    }
  }
  const url =
    route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === 'userId') return fixture.target.id;
      if (name === 'id' && instanceId) return instanceId;
      if (name === 'revision') return '1';
      if (name === 'ordinal') return '1';
      if (name === 'backupId' && backupId) return backupId;
      if (name === 'id' && route.path.startsWith('/groups/')) return fixture.groupId;
      if (name === 'id' && route.path.startsWith('/admin/users/')) return fixture.target.id;
      if (name === 'id' && route.path.startsWith('/hosts/')) return hostId;
      return 'no-such-id';
    }) + (Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : '');

  const headers: Record<string, string> = { origin, accept: 'application/json' };
  // A fresh session for every call: some calls (logout) end the one they are made with.
  if (who !== 'anonymous') {
    const session = await startCookieSession({ db: h.db, clock: h.clock.now }, userIds[who], true, { ip: null, userAgent: null });
    headers.cookie = `warden_session=${session.token}`;
  }
  return h.app.inject({
    method: route.method as 'GET',
    url,
    headers,
    ...(body !== undefined && { payload: body as object }),
  });
}

describe('the access matrix of every route', () => {
  it('declares the expected access of every route in the OpenAPI document', () => {
    const undeclared = routes.filter((r) => !expectations[r.key]).map((r) => `declare the expected access of ${r.key} in rbac.test.ts`);
    expect(undeclared).toEqual([]);
    const known = new Set(routes.map((r) => r.key));
    const stale = Object.keys(expectations).filter((key) => !known.has(key)).map((key) => `${key} is no route any more: remove it`);
    expect(stale).toEqual([]);
  });

  it('agrees with the document about which routes need a session', () => {
    const mismatched = routes
      .filter((r) => expectations[r.key] && !hiddenRoutes.includes(r.key))
      .filter((r) => (r.operation.security !== undefined) !== expectations[r.key].needsSession)
      .map((r) => `${r.key}: the document says ${r.operation.security ? 'it needs a session' : 'it is public'}`);
    expect(mismatched).toEqual([]);
  });

  it('answers each principal as its rule declares', async () => {
    const mismatches: string[] = [];
    let calls = 0;
    for (const route of routes.filter((r) => expectations[r.key])) {
      const group = await createGroup(h.db, { name: `group-${++counter}` }, h.clock.now());
      await addMembers(h.db, group.id, [userIds.member, target.id], h.clock.now());
      const fixture: Fixture = { groupId: group.id, target, unique: () => `rbac-${++counter}` };
      // Admins last: their calls succeed and may change what the route's fixture holds.
      for (const who of principals) {
        const res = await call(route, who, fixture);
        calls++;
        const allowed = expectations[route.key].answers[who];
        if (!allowed.includes(res.statusCode)) {
          mismatches.push(`${route.key} as ${who}: expected ${allowed.join(' or ')}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    // Every declared route × every principal was called.
    expect(calls).toBe(routes.filter((r) => expectations[r.key]).length * principals.length);
    expect(calls).toBeGreaterThanOrEqual(Object.keys(expectations).length * principals.length);
  });
});
