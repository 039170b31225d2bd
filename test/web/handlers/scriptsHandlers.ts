import { http, HttpResponse } from 'msw';
import type { Script, ScriptResult, ScriptRun, ScriptRunRequest, ScriptRunSummary, ScriptSchema } from '../../../contracts/scripts';
import { problem } from '../msw';

/** A finished, successful run of `select * from orders` on orders (i-1) unless told otherwise. */
export const aScriptRun = (overrides: Partial<ScriptRun> = {}): ScriptRun => ({
  id: 'r-1',
  instanceId: 'i-1',
  status: 'succeeded',
  phase: 'finished',
  source: 'latest-backup',
  copiedFrom: 'backup',
  backupId: 'b-1',
  startedAt: '2025-02-03T04:05:06.000Z',
  finishedAt: '2025-02-03T04:05:09.000Z',
  durationMs: 3000,
  ok: true,
  createdBy: 'ada@example.com',
  statements: 1,
  failures: 0,
  script: 'select * from orders;',
  continueOnError: false,
  timeoutMs: 60_000,
  results: [aResult()],
  changes: [],
  ...overrides,
});

export function aResult(overrides: Partial<ScriptResult> = {}): ScriptResult {
  return {
    statement: 'select * from orders;',
    line: 1,
    durationMs: 1.4,
    columns: [
      { name: 'id', type: 'int4' },
      { name: 'note', type: 'text' },
    ],
    rows: [
      ['1', 'first'],
      ['2', null],
    ],
    rowCount: 2,
    command: 'SELECT',
    ...overrides,
  };
}

/** A run just started, as the 202 answer carries it. */
export const aPendingRun = (overrides: Partial<ScriptRun> = {}): ScriptRun =>
  aScriptRun({ status: 'pending', phase: 'queued', copiedFrom: null, backupId: null, finishedAt: null, durationMs: null, ok: null, results: [], changes: undefined, ...overrides });

/** What the history lists of a run. */
export function summaryOf(run: ScriptRun): ScriptRunSummary {
  const { script: _script, continueOnError: _c, timeoutMs: _t, results: _r, changes: _ch, ...summary } = run;
  return summary;
}

interface ScriptServerOptions {
  script?: Script;
  /** Runs already made, newest first. */
  runs?: ScriptRun[];
  /** The run POST …/script starts (its id decides which run GET …/runs/{id} answers). */
  started?: (body: ScriptRunRequest) => ScriptRun;
  /** The instance's tables for completion (none unless told). */
  schema?: ScriptSchema['tables'];
}

/**
 * /instances/{id}/script… from a mutable fake: PUT stores the script (with updatedAt/By), POST
 * starts `started` and lists it first, cancel marks the run cancelled. Every changing call is
 * written to `calls` and its body to `bodies`; `state.runs` can be changed by the test (a run
 * that finished between two reads).
 */
export function scriptServer(options: ScriptServerOptions = {}) {
  const state = {
    script: options.script ?? { script: 'select 1;', updatedAt: '2025-02-03T04:00:00.000Z', updatedBy: 'ada@example.com' },
    runs: options.runs ?? [],
    schema: options.schema ?? [],
    /** GET …/script/schema calls answered. */
    schemaReads: 0,
  };
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const find = (id: unknown) => state.runs.find((run) => run.id === id);
  const missing = () => problem(404, 'Not Found', 'No run has this id.');

  const handlers = [
    http.get('/instances/:id/script', () => HttpResponse.json(state.script)),
    http.put('/instances/:id/script', async ({ request }) => {
      const body = (await request.json()) as { script: string };
      calls.push('PUT script');
      bodies.push(body);
      state.script = { script: body.script, updatedAt: '2025-02-03T05:00:00.000Z', updatedBy: 'ada@example.com' };
      return HttpResponse.json(state.script);
    }),
    http.post('/instances/:id/script', async ({ request }) => {
      const body = (await request.json()) as ScriptRunRequest;
      calls.push('POST script');
      bodies.push(body);
      const run = options.started?.(body) ?? aPendingRun({ id: `r-${state.runs.length + 1}`, script: body.script ?? state.script.script, source: body.source ?? 'latest-backup' });
      state.runs = [run, ...state.runs];
      return HttpResponse.json(run, { status: 202 });
    }),
    http.get('/instances/:id/script/schema', () => {
      state.schemaReads += 1;
      return HttpResponse.json({ tables: state.schema, readAt: '2025-02-03T04:00:00.000Z' });
    }),
    http.get('/instances/:id/script/runs', ({ request }) => {
      const query = new URL(request.url).searchParams;
      const page = Number(query.get('page') ?? 1);
      const pageSize = Number(query.get('pageSize') ?? 25);
      const items = state.runs.slice((page - 1) * pageSize, page * pageSize).map(summaryOf);
      return HttpResponse.json({ items, total: state.runs.length, page, pageSize });
    }),
    http.get('/instances/:id/script/runs/:runId', ({ params }) => {
      const run = find(params.runId);
      return run ? HttpResponse.json(run) : missing();
    }),
    http.post('/instances/:id/script/runs/:runId/cancel', ({ params }) => {
      calls.push(`POST cancel ${params.runId}`);
      const run = find(params.runId);
      if (!run) return missing();
      Object.assign(run, { status: 'cancelled', phase: 'cleaning', ok: false, error: 'Cancelled by ada@example.com.' });
      return HttpResponse.json(run);
    }),
  ];
  return { state, handlers, calls, bodies };
}

/** Quiet answers to every call the script screen makes on opening (the router's tests). */
export function scriptScreensAtRest() {
  return scriptServer().handlers;
}
