import { http, HttpResponse } from 'msw';
import type {
  AllBackupsPage,
  Backup,
  BackupKindSummary,
  BackupSchedule,
  BackupsSummary,
  RetentionPreview,
  RetentionPreviewRequest,
  UpdateScheduleRequest,
} from '../../../contracts/backups';
import type { BackupKind } from '../../../contracts/backupValues';
import type { Instance } from '../../../contracts/instances';
import type { RecoveryWindow } from '../../../contracts/pitr';
import { problem } from '../msw';
import { anInstance } from './instancesHandlers';
import { requestLog } from './pages';

export const aSha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** A whole Backup as the API sends it: a succeeded manual database backup of orders (i-1) unless told otherwise. */
export const aBackup = (overrides: Partial<Backup> = {}): Backup => ({
  id: 'b-1',
  instanceId: 'i-1',
  instanceName: 'orders',
  instanceExists: true,
  kind: 'database',
  trigger: 'manual',
  status: 'succeeded',
  startedAt: '2025-02-03T04:05:06.000Z',
  finishedAt: '2025-02-03T04:05:48.000Z',
  durationMs: 42_000,
  sizeBytes: 1_234_567,
  sha256: aSha256,
  format: 'pg_dump-custom+manifest',
  engineVersion: '16.4',
  error: null,
  verification: null,
  verifying: false,
  contents: {
    databases: [{ name: 'shop', bytes: 1_200_000, rows: { 'public.orders': 1204 } }],
    lsn: '0/3000060',
    tools: { pg_dump: '16.4' },
  },
  progress: null,
  createdBy: 'ada@example.com',
  pinned: false,
  ...overrides,
});

/** A backup being taken now, as the 202 answer and the summary carry it. */
export const aRunningBackup = (overrides: Partial<Backup> = {}): Backup =>
  aBackup({
    id: 'b-run',
    status: 'running',
    finishedAt: null,
    durationMs: null,
    sizeBytes: null,
    sha256: null,
    contents: null,
    progress: { bytes: 0, percent: 0, step: 'starting' },
    ...overrides,
  });

export const aSchedule = (overrides: Partial<BackupSchedule> = {}): BackupSchedule => ({
  instanceId: 'i-1',
  enabled: true,
  cron: '0 3 * * *',
  timeZone: 'Europe/Berlin',
  keepLast: 7,
  keepDays: null,
  includeManual: false,
  method: 'dump',
  lastRunAt: '2025-02-03T02:00:00.000Z',
  nextRuns: [
    '2025-02-04T02:00:00.000Z',
    '2025-02-05T02:00:00.000Z',
    '2025-02-06T02:00:00.000Z',
    '2025-02-07T02:00:00.000Z',
    '2025-02-08T02:00:00.000Z',
  ],
  ...overrides,
});

/** A pg instance whose WAL is not archived: the recoverable window its database backups page shows unless a test says otherwise (pitrHandlers.ts). */
export const archivingOff = (): RecoveryWindow => ({
  enabled: false,
  reason: 'WAL archiving is not set up on this server.',
  repository: 'local',
  earliest: null,
  latest: null,
  archiveTimeoutSeconds: 60,
  retentionDays: 7,
  lastArchivedAt: null,
  lastArchivedWal: null,
  lastFailedAt: null,
  lastFailedWal: null,
  gaps: [],
  backups: [],
  restorePoints: [],
  lastDrill: null,
  lastVerify: null,
  checking: false,
  restoredFrom: null,
});

/** The figures of one kind, as the server would count them from these backups. */
export function kindSummary(backups: Backup[]): BackupKindSummary {
  const succeeded = backups.filter((backup) => backup.status === 'succeeded');
  const newest = (list: Backup[]) => list.map((backup) => backup.startedAt).sort().at(-1) ?? null;
  return {
    count: backups.length,
    succeeded: succeeded.length,
    failed: backups.filter((backup) => backup.status === 'failed' || backup.status === 'corrupt').length,
    totalBytes: backups.reduce((sum, backup) => sum + (backup.sizeBytes ?? 0), 0),
    lastSucceededAt: newest(succeeded),
    lastFailedAt: newest(backups.filter((backup) => backup.status === 'failed')),
    running: backups.find((backup) => backup.status === 'pending' || backup.status === 'running') ?? null,
  };
}

export const aSummary = (backups: Backup[] = [], schedule: BackupSchedule = aSchedule()): BackupsSummary => ({
  instanceId: schedule.instanceId,
  database: kindSummary(backups.filter((backup) => backup.kind === 'database')),
  files: kindSummary(backups.filter((backup) => backup.kind === 'file')),
  schedule,
});

/** Newest first, as the API answers without `sort`; `-field` sorts descending. */
function sorted(backups: Backup[], sort: string | null): Backup[] {
  const field = (sort ?? '-startedAt').replace(/^-/, '') as keyof Backup;
  const direction = (sort ?? '-startedAt').startsWith('-') ? -1 : 1;
  return [...backups].sort((a, b) => (String(a[field]) < String(b[field]) ? -direction : String(a[field]) > String(b[field]) ? direction : 0));
}

function pageOfQuery<T>(items: T[], query: URLSearchParams) {
  const page = Number(query.get('page') ?? 1);
  const pageSize = Number(query.get('pageSize') ?? 25);
  return { items: items.slice((page - 1) * pageSize, page * pageSize), total: items.length, page, pageSize };
}

function filtered(backups: Backup[], query: URLSearchParams): Backup[] {
  const [status, trigger, from, to] = ['status', 'trigger', 'from', 'to'].map((name) => query.get(name));
  return backups.filter(
    (backup) =>
      (!status || backup.status === status) &&
      (!trigger || backup.trigger === trigger) &&
      (!from || backup.startedAt >= from) &&
      (!to || backup.startedAt <= to),
  );
}

interface BackupServerOptions {
  /** The instances whose backups the caller may reach (404 for others): i-1 unless told. */
  instances?: string[];
  backups?: Backup[];
  schedule?: BackupSchedule;
  /** What PUT …/schedule answers; the default stores the body and answers it with `nextRuns`. */
  saveSchedule?: (body: UpdateScheduleRequest) => Response | undefined;
  preview?: (body: RetentionPreviewRequest) => RetentionPreview;
  downloadUrl?: string;
  /** The instance POST …/clone creates. */
  clone?: Instance;
}

/**
 * The backups of the instances behind /instances/{id}/backups…, from a mutable fake: taking a
 * backup adds a running one (409 while one runs), DELETE removes one (the last succeeded backup of
 * an instance only with force), every changing call is written to `calls` and its body to `bodies`.
 */
export function backupServer(options: BackupServerOptions = {}) {
  const state = {
    backups: options.backups ?? [],
    schedule: options.schedule ?? aSchedule(),
    summaryReads: 0,
  };
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const listQueries = requestLog();
  const ofInstance = (id: unknown, kind?: BackupKind) =>
    state.backups.filter((backup) => backup.instanceId === id && (!kind || backup.kind === kind));
  const find = (id: unknown) => state.backups.find((backup) => backup.id === id);
  const missing = () => problem(404, 'Not Found', 'No backup has this id.');
  const known = options.instances ?? ['i-1'];
  const unknownInstance = () => problem(404, 'Not Found', 'No instance has this id.');

  const list = (kind: BackupKind) =>
    http.get(`/instances/:id/backups/${kind === 'database' ? 'database' : 'files'}`, ({ request, params }) => {
      if (!known.includes(String(params.id))) return unknownInstance();
      listQueries.record(request);
      const query = new URL(request.url).searchParams;
      return HttpResponse.json(pageOfQuery(sorted(filtered(ofInstance(params.id, kind), query), query.get('sort')), query));
    });

  const take = (kind: BackupKind) =>
    http.post(`/instances/:id/backups/${kind === 'database' ? 'database' : 'files'}/backup`, ({ params }) => {
      calls.push(`POST ${kind} backup`);
      if (ofInstance(params.id, kind).some((backup) => backup.status === 'pending' || backup.status === 'running')) {
        return problem(409, 'Conflict', 'A backup of this instance is already running.');
      }
      const taken = aRunningBackup({ id: `b-${state.backups.length + 1}`, instanceId: String(params.id), kind, startedAt: new Date().toISOString() });
      state.backups = [taken, ...state.backups];
      return HttpResponse.json(taken, { status: 202 });
    });

  const remove = (segment: 'database' | 'file') =>
    http.delete(`/instances/:id/backups/${segment}/:backupId`, ({ request, params }) => {
      const force = new URL(request.url).searchParams.get('force') === 'true';
      calls.push(`DELETE ${segment} ${params.backupId}${force ? ' force' : ''}`);
      const backup = find(params.backupId);
      if (!backup) return missing();
      const good = ofInstance(backup.instanceId).filter((other) => other.status === 'succeeded');
      if (!force && backup.status === 'succeeded' && good.length === 1) {
        return problem(409, 'Conflict', `This is the last good backup of ${backup.instanceName}; without it the instance cannot be restored.`);
      }
      state.backups = state.backups.filter((other) => other.id !== backup.id);
      return HttpResponse.json({ id: backup.id });
    });

  const handlers = [
    http.get('/instances/:id/backups', ({ params }) => {
      if (!known.includes(String(params.id))) return unknownInstance();
      state.summaryReads += 1;
      return HttpResponse.json(aSummary(ofInstance(params.id), { ...state.schedule, instanceId: String(params.id) }));
    }),
    list('database'),
    list('file'),
    take('database'),
    take('file'),
    remove('database'),
    remove('file'),
    http.get('/instances/:id/backups/url/:backupId', ({ params }) => {
      calls.push(`GET url ${params.backupId}`);
      const url = options.downloadUrl ?? `https://storage.example.com/backups/${params.backupId}?signature=abc`;
      return find(params.backupId) ? HttpResponse.json({ url, expiresAt: '2025-02-03T05:10:00.000Z' }) : missing();
    }),
    http.post('/instances/:id/backups/:backupId/verify', ({ params }) => {
      calls.push(`POST verify ${params.backupId}`);
      const backup = find(params.backupId);
      return backup ? HttpResponse.json({ ...backup, verifying: true }, { status: 202 }) : missing();
    }),
    http.get('/instances/:id/backups/schedule', ({ params }) => (known.includes(String(params.id)) ? HttpResponse.json(state.schedule) : unknownInstance())),
    http.put('/instances/:id/backups/schedule', async ({ request }) => {
      const body = (await request.json()) as UpdateScheduleRequest;
      calls.push('PUT schedule');
      bodies.push(body);
      const refused = options.saveSchedule?.(body);
      if (refused) return refused;
      state.schedule = { ...state.schedule, ...body, nextRuns: body.enabled ? state.schedule.nextRuns : [] };
      return HttpResponse.json(state.schedule);
    }),
    http.post('/instances/:id/backups/retention/preview', async ({ request }) => {
      const body = (await request.json()) as RetentionPreviewRequest;
      calls.push('POST retention preview');
      bodies.push(body);
      return HttpResponse.json(options.preview?.(body) ?? { wouldDelete: [], keptCount: state.backups.length, freedBytes: 0 });
    }),
    // The database backups page of a pg instance shows its recoverable window.
    http.get('/instances/:id/recovery-window', () => HttpResponse.json(archivingOff())),
    http.post('/instances/:id/clone', async ({ request }) => {
      calls.push('POST clone');
      bodies.push(await request.json());
      return HttpResponse.json(options.clone ?? anInstance({ id: 'i-new', name: 'orders-restored', status: 'unInitialized' }), { status: 202 });
    }),
  ];
  return { state, handlers, calls, bodies, listQueries };
}

/** GET /backups: answers what `answer` makes of the query, and logs each query. */
export function allBackupsHandler(answer: (query: URLSearchParams) => AllBackupsPage = () => allBackupsPageOf([])) {
  const log = requestLog();
  const handler = http.get('/backups', ({ request }) => {
    log.record(request);
    return HttpResponse.json(answer(new URL(request.url).searchParams));
  });
  return { handler, ...log };
}

/** One page of GET /backups, with its totals counted from `items` unless told. */
export function allBackupsPageOf(items: Backup[], totals: Partial<Omit<AllBackupsPage, 'items'>> = {}): AllBackupsPage {
  return {
    items,
    total: items.length,
    page: 1,
    pageSize: 25,
    totalBytes: items.reduce((sum, backup) => sum + (backup.sizeBytes ?? 0), 0),
    failures: items.filter((backup) => backup.status === 'failed' || backup.status === 'corrupt').length,
    ...totals,
  };
}

/** Quiet answers to every call the backup screens make on opening (the router's tests). */
export function backupScreensAtRest() {
  return [...backupServer({ instances: ['42'] }).handlers, allBackupsHandler().handler];
}
