import { http, HttpResponse } from 'msw';
import type { ConnectionInfo, Instance, InstanceConfig, ConfigParameter, IsLatestResponse } from '../../../contracts/instances';
import type { LogEntry, LogsPage } from '../../../contracts/logs';
import type { PageOf } from '../../../contracts/page';
import { problem } from '../msw';
import { databaseServer } from './databasesHandlers';
import { aHost, hostsHandlers } from './hostsHandlers';
import { logsServer } from './logsHandlers';
import { pageOf, requestLog } from './pages';

export const anInstance = (overrides: Partial<Instance> = {}): Instance => ({
  id: 'i-1',
  name: 'orders',
  type: 'pg',
  status: 'running',
  desiredState: 'running',
  statusReason: null,
  health: { level: 'good', checks: [{ name: 'accepts connections', level: 'good', message: 'pg_isready: accepting connections' }] },
  groupId: 'g-1',
  groupName: 'payments',
  members: 1,
  engineVersion: '16.4',
  host: '127.0.0.1',
  hostId: null,
  port: 15432,
  description: 'Orders of the shop',
  createdAt: '2025-02-03T04:05:06.000Z',
  createdBy: 'ada@example.com',
  lastBackupAt: null,
  operation: null,
  version: 1,
  ...overrides,
});

export const aLogEntry = (overrides: Partial<LogEntry> = {}): LogEntry => ({
  id: 1,
  timestamp: '2025-02-03T04:05:06.000Z',
  level: 'information',
  instanceId: 'i-1',
  handler: 'postgres',
  message: 'database system is ready to accept connections',
  properties: {},
  ...overrides,
});

export const aParameter = (overrides: Partial<ConfigParameter> = {}): ConfigParameter => ({
  name: 'shared_buffers',
  value: '128MB',
  default: '128MB',
  type: 'string',
  unit: null,
  min: null,
  max: null,
  enumValues: null,
  policy: 'user',
  editable: true,
  reason: null,
  apply: 'restart',
  description: 'Sets the number of shared memory buffers used by the server.',
  ...overrides,
});

export const aConnection = (overrides: Partial<ConnectionInfo> = {}): ConnectionInfo => ({
  host: '127.0.0.1',
  port: 15432,
  user: 'app',
  database: 'app',
  uri: 'postgresql://app@127.0.0.1:15432/app',
  command: "psql 'postgresql://app@127.0.0.1:15432/app'",
  endpoints: ['127.0.0.1:15432'],
  ...overrides,
});

/** GET /instances: answers what `answer` makes of the query, and logs each query. */
export function instancesListHandler(answer: (query: URLSearchParams) => PageOf<Instance> = () => pageOf([])) {
  const log = requestLog();
  const handler = http.get('/instances', ({ request }) => {
    log.record(request);
    return HttpResponse.json(answer(new URL(request.url).searchParams));
  });
  return { handler, ...log };
}

export const allGroupsHandler = (groups: { id: string; name: string }[] = []) =>
  http.get('/groups/all', () => HttpResponse.json(groups));

interface InstanceServerOptions {
  config?: InstanceConfig;
  latest?: IsLatestResponse;
  connection?: ConnectionInfo;
  /** The log, newest first; pages of `limit` entries by cursor (the id entries must be older than). */
  logs?: LogEntry[];
  handlers?: string[];
  password?: string;
  superuserPassword?: string;
  /** The instance's databases and roles (a default fake unless given). */
  databases?: ReturnType<typeof databaseServer>;
}

/**
 * One instance behind GET /instances/{id} and the calls its screen makes, from a mutable fake:
 * operations set `operation`, DELETE removes it (a running one only with force), every
 * changing call is written to `calls`, and GETs of the instance and of its configuration are counted.
 */
export function instanceServer(instance: Instance | null, options: InstanceServerOptions = {}) {
  const state = { instance, logs: options.logs ?? [], reads: 0, configReads: 0 };
  const calls: string[] = [];
  const logQueries = requestLog();
  const logs = logsServer(state.logs);
  const databases = options.databases ?? databaseServer();
  const missing = () => problem(404, 'Not Found', 'No instance has this id.');
  const operation = (kind: 'start' | 'stop' | 'restart' | 'reload') => () => {
    calls.push(`POST ${kind}`);
    if (!state.instance) return missing();
    if (state.instance.operation) return problem(409, 'Conflict', 'Another operation is running.');
    state.instance = { ...state.instance, operation: { kind, startedAt: '2025-02-03T05:00:00.000Z' } };
    return HttpResponse.json(state.instance, { status: 202 });
  };

  const handlers = [
    http.get('/instances/:id', ({ params }) => {
      state.reads += 1;
      return state.instance && params.id === state.instance.id ? HttpResponse.json(state.instance) : missing();
    }),
    http.get('/instances/:id/connection', () => HttpResponse.json(options.connection ?? aConnection())),
    http.post('/instances/:id/connection/secret', ({ request }) => {
      if (new URL(request.url).searchParams.get('role') === 'superuser') {
        calls.push('POST secret superuser');
        return HttpResponse.json({ password: options.superuserPassword ?? 'Sup3r-s3cret' });
      }
      calls.push('POST secret');
      return HttpResponse.json({ password: options.password ?? 's3cret-Pa55' });
    }),
    ...databases.handlers,
    http.get('/instances/:id/config', () => {
      state.configReads += 1;
      return HttpResponse.json(options.config ?? { revision: 0, parameters: [aParameter()], pendingRestart: [] });
    }),
    http.get('/instances/:id/is-latest', () =>
      HttpResponse.json(options.latest ?? { latest: true, engineVersion: '16.4', latestVersion: '16.4' }),
    ),
    http.get('/instances/:id/logs', ({ request }) => {
      logQueries.record(request);
      const query = new URL(request.url).searchParams;
      const cursor = Number(query.get('cursor') ?? Infinity);
      const limit = Number(query.get('limit') ?? 100);
      const levels = query.get('levels')?.split(',');
      const older = state.logs.filter((entry) => entry.id < cursor && (!levels || levels.includes(entry.level)));
      const items = older.slice(0, limit);
      const page: LogsPage = { items, nextCursor: older.length > limit ? items[items.length - 1].id : null };
      return HttpResponse.json(page);
    }),
    http.get('/instances/:id/logs/unique-handlers', () => HttpResponse.json(options.handlers ?? ['postgres', 'backup'])),
    // The instance page's log section reads the global /logs calls with the instance fixed.
    ...logs.handlers,
    http.post('/instances/:id/start', operation('start')),
    http.post('/instances/:id/stop', operation('stop')),
    http.post('/instances/:id/restart', operation('restart')),
    http.post('/instances/:id/reload-configuration', operation('reload')),
    http.delete('/instances/:id', ({ request }) => {
      const force = new URL(request.url).searchParams.get('force') === 'true';
      calls.push(`DELETE${force ? ' force' : ''}`);
      if (!state.instance) return missing();
      if (state.instance.status === 'running' && !force) return problem(409, 'Conflict', 'The instance is running.');
      const { id } = state.instance;
      state.instance = null;
      return HttpResponse.json({ id, backups: 'Its 2 backups are kept for 30 days.' });
    }),
  ];
  return { state, handlers, calls, logQueries, databases, logs };
}

/**
 * Quiet answers to every call the instance screens make on opening, for tests that only open a
 * screen (the router's and the guard's): an empty list, no groups, instance 42 at rest and one host.
 */
export function instanceScreensAtRest() {
  return [
    instancesListHandler().handler,
    allGroupsHandler(),
    ...instanceServer(anInstance({ id: '42' }), { logs: [] }).handlers,
    ...hostsHandlers([aHost()]).handlers,
  ];
}
