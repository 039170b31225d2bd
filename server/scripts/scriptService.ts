import { randomUUID } from 'node:crypto';
import { pgDefaultDatabase } from '../../contracts/databases';
import type { PageOf } from '../../contracts/page';
import {
  scriptLimits,
  scriptSources,
  type Script,
  type ScriptChange,
  type ScriptResult,
  type ScriptRun,
  type ScriptRunPhase,
  type ScriptRunRequest,
  type ScriptRunsQuery,
  type ScriptRunStatus,
  type ScriptRunSummary,
  type ScriptRunUpdatedPayload,
} from '../../contracts/scripts';
import type { BackupService } from '../backups/backupService';
import type { Clock } from '../clock';
import { scriptDefaults, type Config } from '../config';
import { findGroup, groupUsage, memberIdsOfGroup } from '../db/groups';
import { findInstanceRow, type InstanceRow } from '../db/instances';
import { pageWindow } from '../db/paging';
import type { Db } from '../db/schema';
import {
  findScript,
  findScriptRunRow,
  insertScriptRun,
  listScriptRuns,
  saveScript,
  toScriptRun,
  unfinishedScriptRuns,
  updateScriptRun,
  type ScriptRunChange,
} from '../db/scripts';
import type { InstanceRuntime } from '../engines/engine';
import { pgSuperuserTarget } from '../engines/pg';
import { pgRowCounts, withClient } from '../engines/pgBackup';
import type { EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { HttpProblem, validationProblem } from '../http/problems';
import type { InstanceService } from '../instances/instanceService';
import type { LogService } from '../logs/logService';
import { parseEtcdScript, runEtcdCommands, type EtcdCommand } from './etcdScript';
import { runPgStatements } from './pgScript';
import { checkHasBackup, diffCounts, lastLogMessages, prepareSandbox, sandboxName } from './sandbox';
import { splitSql, type SqlStatement } from './sqlSplitter';

export interface ScriptServiceDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  config: Config;
  logs: LogService;
  instances: InstanceService;
  backups: BackupService;
}

/** A run under way: what the hub is told, and how to stop it. */
interface ActiveRun {
  summary: ScriptRunSummary;
  groupId: string | null;
  abort: AbortController;
  /** Why it was stopped early, if it was. */
  stopped: 'cancelled' | 'timeout' | 'closing' | null;
  lastSent: number;
}

type Parsed = { type: 'pg'; statements: SqlStatement[] } | { type: 'etcd'; statements: EtcdCommand[] };

const progressIntervalMs = 250;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const scriptBytes = (script: string) => Buffer.byteLength(script, 'utf8');

/** 413 for a script over the limit, in bytes. */
export function checkScriptSize(script: string) {
  if (scriptBytes(script) > scriptLimits.maxScriptBytes) {
    throw new HttpProblem(413, `The script is ${scriptBytes(script)} bytes; at most ${scriptLimits.maxScriptBytes} bytes are accepted.`, {
      title: 'Script too large',
    });
  }
}

/**
 * Scripts (DESIGN §5 "Script", issue 15): one saved script per instance, and runs of it in a sandbox —
 * a scratch instance made from the newest backup, a chosen backup, a live copy, or empty on request — as the
 * instance's owner role, never on the instance itself. One run per instance at a time; each sandbox
 * counts against the group's instance quota and is removed when the run ends, however it ends.
 */
export class ScriptService {
  /** By instance id. */
  private readonly active = new Map<string, ActiveRun>();
  private readonly work = new Set<Promise<unknown>>();

  constructor(private readonly deps: ScriptServiceDeps) {}

  private get db() {
    return this.deps.db;
  }

  private now() {
    return this.deps.clock();
  }

  /** The longest timeout a run may ask for. */
  get timeoutCeilingMs(): number {
    return this.deps.config.scriptTimeoutMaxMs ?? scriptDefaults.timeoutMaxMs;
  }

  // ---- Saved script ----

  script(instanceId: string): Promise<Script> {
    return findScript(this.db, instanceId);
  }

  async save(instanceId: string, script: string, author: string | null): Promise<Script> {
    checkScriptSize(script);
    await saveScript(this.db, instanceId, script, this.now().toISOString(), author);
    return findScript(this.db, instanceId);
  }

  // ---- Runs ----

  async list(instanceId: string, query: ScriptRunsQuery): Promise<PageOf<ScriptRunSummary>> {
    const page = await listScriptRuns(this.db, instanceId, pageWindow(query), query.status);
    return { ...page, items: page.items.map((item) => this.live(item)) };
  }

  async find(instanceId: string, runId: string): Promise<ScriptRun> {
    const row = await findScriptRunRow(this.db, runId);
    if (!row || row.instance_id !== instanceId) throw new HttpProblem(404, `The instance has no script run ${runId}.`);
    const run = toScriptRun(row);
    return { ...run, ...this.live(run) };
  }

  /** A run as stored, with its live phase and progress while it runs. */
  private live<T extends ScriptRunSummary>(run: T): T {
    const active = this.active.get(run.instanceId);
    return active?.summary.id === run.id ? { ...run, ...active.summary } : run;
  }

  /**
   * Starts a run: answers it at once (pending) and runs it in the background; ScriptRunUpdated
   * events follow its phases. The saved script runs when the request holds none.
   */
  async start(instanceId: string, request: ScriptRunRequest, author: string | null): Promise<ScriptRun> {
    const instance = await this.requireInstance(instanceId);
    const script = request.script ?? (await findScript(this.db, instanceId)).script;
    checkScriptSize(script);
    const timeoutMs = request.timeoutMs ?? Math.min(scriptLimits.defaultTimeoutMs, this.timeoutCeilingMs);
    if (timeoutMs > this.timeoutCeilingMs) {
      throw validationProblem({ timeoutMs: [`At most ${this.timeoutCeilingMs} ms (${Math.round(this.timeoutCeilingMs / 1000)} s) on this server.`] });
    }
    const source = request.source ?? 'latest-backup';
    if (source === 'latest-backup') await checkHasBackup(this.db, instanceId);
    else if (!(scriptSources as readonly string[]).includes(source)) await this.deps.backups.checkCloneSource(instanceId, source);
    const parsed: Parsed =
      instance.type === 'pg' ? { type: 'pg', statements: splitSql(script) } : { type: 'etcd', statements: parseEtcdScript(script) };
    if (parsed.statements.length === 0) throw validationProblem({ script: ['The script holds no statement to run.'] });
    const engine = this.deps.instances.engine(instance.type);
    const missing = await engine.unavailable();
    if (missing) throw new HttpProblem(503, missing, { title: 'Engine not installed' });

    // Claimed before the next await, so two requests cannot both start a run.
    if (this.active.has(instanceId)) throw new HttpProblem(409, 'A script is running on this instance: wait for it to finish or cancel it.');
    const id = randomUUID();
    const startedAt = this.now().toISOString();
    const summary: ScriptRunSummary = {
      id,
      instanceId,
      status: 'pending',
      phase: 'queued',
      source,
      copiedFrom: null,
      backupId: null,
      startedAt,
      finishedAt: null,
      durationMs: null,
      ok: null,
      createdBy: author,
      statements: parsed.statements.length,
      failures: 0,
    };
    const run: ActiveRun = { summary, groupId: instance.group_id, abort: new AbortController(), stopped: null, lastSent: 0 };
    this.active.set(instanceId, run);
    try {
      await this.checkQuota(instance);
      await insertScriptRun(this.db, {
        id,
        instance_id: instanceId,
        status: 'pending',
        phase: 'queued',
        source,
        copied_from: null,
        backup_id: null,
        script,
        continue_on_error: request.continueOnError ? 1 : 0,
        timeout_ms: timeoutMs,
        started_at: startedAt,
        finished_at: null,
        ok: null,
        created_by: author,
        statements: parsed.statements.length,
        failures: 0,
        error: null,
        results: null,
        changes: null,
      });
    } catch (error) {
      this.active.delete(instanceId);
      throw error;
    }
    this.publish(run);
    await this.deps.logs.write({
      level: 'information',
      instanceId,
      handler: 'script',
      message: `Script run ${id} started by ${author ?? 'the system'}: ${parsed.statements.length} statement(s) on a sandbox from ${source}.`,
      properties: { runId: id, source },
    });
    this.track(this.execute(instance, run, parsed, { continueOnError: request.continueOnError ?? false, timeoutMs }));
    return this.find(instanceId, id);
  }

  /** Stops a run: the running statement is cancelled, the sandbox removed; the run ends as cancelled. */
  async cancel(instanceId: string, runId: string): Promise<ScriptRun> {
    const run = await this.find(instanceId, runId);
    const active = this.active.get(instanceId);
    if (!active || active.summary.id !== runId) throw new HttpProblem(409, `The run is ${run.status}: only a running script can be cancelled.`);
    active.stopped ??= 'cancelled';
    active.abort.abort();
    return this.find(instanceId, runId);
  }

  /** 409 when the instance's group has no room for one more instance: a sandbox counts as one while it exists. */
  private async checkQuota(instance: InstanceRow) {
    if (!instance.group_id) return;
    const group = await findGroup(this.db, instance.group_id);
    const max = group?.quota.maxInstances ?? null;
    if (!group || max === null) return;
    const sandboxes = [...this.active.values()].filter((a) => a.groupId === group.id).length;
    if ((await groupUsage(this.db, group.id)).instances + sandboxes > max) {
      throw new HttpProblem(
        409,
        `group '${group.name}' has reached its quota of ${max} instance${max === 1 ? '' : 's'}: a script's sandbox counts as one while it runs`,
        { title: 'Quota reached' },
      );
    }
  }

  private async execute(instance: InstanceRow, run: ActiveRun, parsed: Parsed, options: { continueOnError: boolean; timeoutMs: number }) {
    const { id } = run.summary;
    let results: ScriptResult[] = [];
    let changes: ScriptChange[] | undefined;
    let failure: string | null = null;
    let dispose: (() => Promise<void>) | null = null;
    let timer: NodeJS.Timeout | null = null;
    let sandbox: InstanceRuntime | null = null;
    try {
      await this.enter(run, 'preparing', { status: 'running' });
      // Cancelled while queued: no copy is made for a run nobody waits for.
      if (run.abort.signal.aborted) throw new Error('stopped');
      const scratch = await this.deps.instances.scratch(instance.type, sandboxName(id), instance.id);
      dispose = scratch.dispose;
      sandbox = scratch.rt;
      const copied = await prepareSandbox(this.deps, instance, run.summary.source, scratch.rt, id);
      run.summary.copiedFrom = copied.copiedFrom;
      run.summary.backupId = copied.backupId;
      await updateScriptRun(this.db, id, { copied_from: copied.copiedFrom, backup_id: copied.backupId });
      if (run.abort.signal.aborted) throw new Error('stopped');
      await this.enter(run, 'starting');
      const engine = this.deps.instances.engine(instance.type);
      await engine.start(scratch.rt);
      const superuser = parsed.type === 'pg' ? pgSuperuserTarget(scratch.rt) : null;
      const before = superuser ? (copied.rows ?? (await pgRowCounts(superuser, pgDefaultDatabase))) : null;
      if (run.abort.signal.aborted) throw new Error('stopped');
      await this.enter(run, 'running');
      timer = setTimeout(() => {
        run.stopped ??= 'timeout';
        run.abort.abort();
      }, options.timeoutMs);
      const onStatement = (index: number) => this.progress(run, index);
      if (parsed.type === 'pg') {
        results = await runPgStatements(scratch.rt, parsed.statements, {
          continueOnError: options.continueOnError,
          timeoutMs: options.timeoutMs,
          onStatement,
          signal: run.abort.signal,
          cancelBackend: (pid) => withClient(superuser!, 'postgres', (c) => c.query('select pg_cancel_backend($1)', [pid]).then(() => undefined), 10_000),
        });
      } else {
        results = await runEtcdCommands(scratch.rt, parsed.statements, {
          etcdctl: this.deps.config.engines.etcdctlBin,
          continueOnError: options.continueOnError,
          deadline: Date.now() + options.timeoutMs,
          onStatement,
          signal: run.abort.signal,
        });
      }
      clearTimeout(timer);
      if (superuser && before && !run.abort.signal.aborted) changes = diffCounts(before, await pgRowCounts(superuser, pgDefaultDatabase));
    } catch (error) {
      if (!run.abort.signal.aborted) {
        // The sandbox's own log says why it did not start; it goes with the sandbox.
        const said = run.summary.phase === 'running' || !sandbox ? [] : lastLogMessages(this.deps.instances.engine(instance.type).logDir(sandbox));
        failure = [message(error), ...said].join('\n');
      }
    } finally {
      if (timer) clearTimeout(timer);
      await this.enter(run, 'cleaning').catch(() => undefined);
      try {
        await dispose?.();
      } catch (error) {
        failure ??= `The sandbox could not be removed: ${message(error)}`;
      }
    }
    await this.finish(run, results, changes, failure, options.timeoutMs);
  }

  private async finish(run: ActiveRun, results: ScriptResult[], changes: ScriptChange[] | undefined, failure: string | null, timeoutMs: number) {
    const { id, instanceId } = run.summary;
    const failures = results.filter((r) => r.error).length;
    let status: ScriptRunStatus;
    let error: string | null = failure;
    if (run.stopped === 'cancelled') {
      status = 'cancelled';
      error = 'Cancelled on request.';
    } else if (run.stopped === 'closing') {
      status = 'cancelled';
      error = 'Cancelled: the server stopped.';
    } else if (run.stopped === 'timeout') {
      status = 'failed';
      error = `The statements ran longer than the run's timeout of ${timeoutMs / 1000} s.`;
    } else status = failure === null && failures === 0 && results.length === run.summary.statements ? 'succeeded' : 'failed';
    const finishedAt = this.now().toISOString();
    const change: ScriptRunChange = {
      status,
      phase: 'finished',
      finished_at: finishedAt,
      ok: status === 'succeeded' ? 1 : 0,
      failures,
      error,
      results: JSON.stringify(results),
      changes: changes ? JSON.stringify(changes) : null,
    };
    await updateScriptRun(this.db, id, change);
    Object.assign(run.summary, {
      status,
      phase: 'finished' as const,
      finishedAt,
      durationMs: Date.parse(finishedAt) - Date.parse(run.summary.startedAt),
      ok: status === 'succeeded',
      failures,
      ...(error !== null && { error }),
    });
    delete run.summary.progress;
    this.active.delete(instanceId);
    this.publish(run);
    await this.deps.logs.write({
      level: status === 'succeeded' ? 'information' : 'warning',
      instanceId,
      handler: 'script',
      message: `Script run ${id} ${status}: ${results.length} of ${run.summary.statements} statement(s) ran, ${failures} failed${error ? `; ${error}` : ''}. The sandbox is removed.`,
      properties: { runId: id, status, failures },
    });
  }

  /** A new phase: stored, and told to the instance's viewers at once. */
  private async enter(run: ActiveRun, phase: ScriptRunPhase, change: { status?: ScriptRunStatus } = {}) {
    run.summary.phase = phase;
    if (change.status) run.summary.status = change.status;
    if (phase !== 'running') delete run.summary.progress;
    await updateScriptRun(this.db, run.summary.id, { phase, ...(change.status && { status: change.status }) });
    this.publish(run);
  }

  /** Statement k of n: told at most every progressIntervalMs (the first at once); kept in memory only. */
  private progress(run: ActiveRun, index: number) {
    run.summary.progress = { statement: index + 1, of: run.summary.statements };
    const now = Date.now();
    if (index === 0 || now - run.lastSent >= progressIntervalMs) this.publish(run);
  }

  /** ScriptRunUpdated to the instance's viewers who may see it (admins and its group's members). */
  private publish(run: ActiveRun) {
    run.lastSent = Date.now();
    const payload: ScriptRunUpdatedPayload = { run: { ...run.summary } };
    void memberIdsOfGroup(this.db, run.groupId)
      .then((userIds) =>
        this.deps.bus.publish({ event: 'ScriptRunUpdated', payload, audience: { kind: 'scoped', groups: [hubGroupNames.instance(run.summary.instanceId)], userIds } }),
      )
      .catch(() => undefined);
  }

  // ---- Start, stop ----

  /** After a server start: runs a stop cut off are failed (their sandboxes are removed with the other scratch instances). */
  async recover(): Promise<void> {
    for (const row of await unfinishedScriptRuns(this.db)) {
      await updateScriptRun(this.db, row.id, {
        status: 'failed',
        phase: 'finished',
        ok: 0,
        finished_at: this.now().toISOString(),
        error: 'The server stopped while this script ran; its sandbox was removed at the next start.',
      });
      await this.deps.logs.write({
        level: 'warning',
        instanceId: row.instance_id,
        handler: 'script',
        message: `Script run ${row.id} was cut off by a server stop and is marked failed.`,
        properties: { runId: row.id },
      });
    }
  }

  /** Cancels every run and waits for their sandboxes to be removed. */
  async close(): Promise<void> {
    for (const run of this.active.values()) {
      run.stopped ??= 'closing';
      run.abort.abort();
    }
    await this.idle();
  }

  /** Resolves when no run is under way: tests and benchmarks wait on it. */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private track(promise: Promise<unknown>) {
    this.work.add(promise);
    void promise.catch(() => undefined).finally(() => this.work.delete(promise));
  }

  private async requireInstance(id: string): Promise<InstanceRow> {
    const row = await findInstanceRow(this.db, id);
    if (!row) throw new HttpProblem(404, `No instance has the id ${id}.`);
    return row;
  }
}
