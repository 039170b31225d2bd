import { http, HttpResponse } from 'msw';
import type { Backup } from '../../../contracts/backups';
import type { Instance } from '../../../contracts/instances';
import type {
  CreateRestorePointRequest,
  PhysicalBackup,
  PitrSettings,
  RecoveryCheck,
  RecoveryWindow,
  RestorePlan,
  RestorePoint,
  RestoreToPointRequest,
} from '../../../contracts/pitr';
import { problem } from '../msw';
import { aRunningBackup } from './backupsHandlers';
import { anInstance } from './instancesHandlers';

/** A moment `ms` before now, as the API writes it. */
export const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const hour = 3_600_000;

/** A physical backup as the window lists it: a full one finished two hours ago unless told otherwise. */
export const aPhysicalBackup = (overrides: Partial<PhysicalBackup> = {}): PhysicalBackup => ({
  id: '20261126-100000F',
  kind: 'full',
  startedAt: ago(2 * hour + 60_000),
  finishedAt: ago(2 * hour),
  walStart: '000000010000000000000003',
  walStop: '000000010000000000000003',
  lsnStart: '0/3000028',
  lsnStop: '0/3000138',
  sizeBytes: 4_200_000,
  databaseBytes: 31_000_000,
  dependsOn: [],
  ...overrides,
});

/** A restore drill that went well an hour ago: 3 min 12 s to a moment of the two hours' window. */
export const aRecoveryCheck = (overrides: Partial<RecoveryCheck> = {}): RecoveryCheck => ({
  kind: 'drill',
  at: ago(hour),
  ok: true,
  targetTime: ago(90 * 60_000),
  backupId: '20261126-100000F',
  recoverySeconds: 192,
  detail: 'Restored in 192.0 s; 1 database(s) answer queries.',
  ...overrides,
});

/** The window of a pg instance that archives: from a full backup two hours ago to 12 s ago, nothing wrong. */
export const aRecoveryWindow = (overrides: Partial<RecoveryWindow> = {}): RecoveryWindow => ({
  enabled: true,
  reason: null,
  repository: 'local',
  earliest: ago(2 * hour),
  latest: ago(12_000),
  archiveTimeoutSeconds: 60,
  retentionDays: 7,
  lastArchivedAt: ago(12_000),
  lastArchivedWal: '00000001000000000000000A',
  lastFailedAt: null,
  lastFailedWal: null,
  gaps: [],
  backups: [aPhysicalBackup()],
  restorePoints: [],
  lastDrill: null,
  lastVerify: null,
  checking: false,
  restoredFrom: null,
  ...overrides,
});

/** The plan of a dry run, from the window's first backup. */
export const aPlan = (window: RecoveryWindow, request: RestoreToPointRequest, overrides: Partial<RestorePlan> = {}): RestorePlan => ({
  targetTime: typeof request.target === 'object' && 'time' in request.target ? request.target.time : window.latest,
  target: request.target,
  backup: window.backups[0] ?? aPhysicalBackup(),
  timeline: 1,
  walSegments: 7,
  walBytes: 7 * 16_777_216,
  estimatedSeconds: 95,
  window: { earliest: window.earliest ?? '', latest: window.latest ?? '' },
  ...overrides,
});

interface PitrServerOptions {
  window?: RecoveryWindow;
  /** What POST …/restore-point answers in a dry run; the default plans from the window. */
  plan?: (request: RestoreToPointRequest) => RestorePlan | Response;
  /** What POST …/restore-point answers otherwise: 202 with the new instance unless told. */
  restore?: (request: RestoreToPointRequest) => Response | undefined;
  /** The instance a restore creates. */
  restored?: Instance;
}

/**
 * Point-in-time recovery of instance i-1 from a mutable fake: GET the window, the restore (dry run
 * or not, refused outside the window as the server words it), restore points, settings, restore
 * drills and verifications, and a database backup with a body. Every changing call is written to
 * `calls`, its body to `bodies`.
 */
export function pitrServer(options: PitrServerOptions = {}) {
  const state = { window: options.window ?? aRecoveryWindow(), windowReads: 0 };
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const dryRuns: RestoreToPointRequest[] = [];
  const restored = options.restored ?? anInstance({ id: 'i-new', name: 'orders-before', status: 'unInitialized' });

  /** The server's own check of a time target against its window. */
  const outside = ({ target }: RestoreToPointRequest) => {
    if (typeof target !== 'object' || !('time' in target)) return undefined;
    const { earliest, latest } = state.window;
    const time = Date.parse(target.time);
    if (earliest && latest && time >= Date.parse(earliest) && time <= Date.parse(latest)) return undefined;
    return problem(400, 'Bad Request', `${target.time} is outside the recoverable window ${earliest} – ${latest}`);
  };

  const handlers = [
    http.get('/instances/:id/recovery-window', () => {
      state.windowReads += 1;
      return HttpResponse.json(state.window);
    }),
    http.post('/instances/:id/restore-point', async ({ request }) => {
      const body = (await request.json()) as RestoreToPointRequest;
      if (body.dryRun) {
        dryRuns.push(body);
        const answer = options.plan?.(body) ?? outside(body) ?? aPlan(state.window, body);
        return answer instanceof Response ? answer : HttpResponse.json(answer);
      }
      calls.push('POST restore-point');
      bodies.push(body);
      return options.restore?.(body) ?? outside(body) ?? HttpResponse.json(restored, { status: 202 });
    }),
    http.post('/instances/:id/restore-points', async ({ request }) => {
      const body = (await request.json()) as CreateRestorePointRequest;
      calls.push('POST restore-points');
      bodies.push(body);
      const point: RestorePoint = { name: body.name, at: new Date().toISOString(), lsn: '0/9000060', createdBy: 'ada@example.com' };
      state.window = { ...state.window, restorePoints: [...state.window.restorePoints, point] };
      return HttpResponse.json(point, { status: 201 });
    }),
    http.put('/instances/:id/pitr/settings', async ({ request }) => {
      const body = (await request.json()) as PitrSettings;
      calls.push('PUT pitr settings');
      bodies.push(body);
      state.window = { ...state.window, ...body };
      return HttpResponse.json(body);
    }),
    // A restore drill or a verification: 202 with the window checking, refused while one runs or without a backup.
    http.post('/instances/:id/pitr/:kind', async ({ request, params }) => {
      calls.push(`POST pitr ${String(params.kind)}`);
      bodies.push(await request.json());
      if (state.window.checking) return problem(409, 'Conflict', 'A drill or verification of orders runs now: wait for it to finish.');
      if (state.window.backups.length === 0) return problem(409, 'Conflict', 'orders has no physical backup yet: there is nothing to restore.');
      state.window = { ...state.window, checking: true };
      return HttpResponse.json(state.window, { status: 202 });
    }),
    http.post('/instances/:id/backups/database/backup', async ({ request, params }) => {
      const body = (await request.json()) as { kind?: string };
      calls.push('POST database backup');
      bodies.push(body);
      const taken: Backup = aRunningBackup({ id: 'b-phys', instanceId: String(params.id), format: body.kind ? `pgBackRest ${body.kind}` : 'pg_dump-custom+manifest' });
      return HttpResponse.json(taken, { status: 202 });
    }),
  ];
  return { state, handlers, calls, bodies, dryRuns, restored };
}
