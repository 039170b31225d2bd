import type { Clock } from '../clock';
import { metricsDefaults } from '../config';
import { allInstanceRows, memberIdsOfInstances, type InstanceRow } from '../db/instances';
import { insertSamples, seriesIdOf, setMeasuredSize } from '../db/metrics';
import type { Db } from '../db/schema';
import type { Engine, InstanceRuntime } from '../engines/engine';
import type { EventBus } from '../hub/bus';
import { hubGroupNames } from '../hub/methods';
import { EtcdSampler } from './etcdSampler';
import { PgSampler } from './pgSampler';
import { cpuPercent, cpuTicksOf, folderBytes, processTree, residentBytes, snapshotProcesses, type ProcessEntry } from './processes';
import { maintainMetrics } from './retention';
import { encodeValues, type MetricValues } from './series';

// Samples every running instance on a timer (DESIGN §10): engine figures, the process tree's CPU
// and memory, and now and then the data folder's size. Each instance is sampled on its own with a
// deadline, so one slow or stopped instance never holds up the others, and an instance whose
// previous sample is still under way is skipped rather than sampled twice at once.

/** A sample's deadline; how often the data folder is walked and the store rolled up and trimmed. */
export const collectorDefaults = { sampleTimeoutMs: 3000, folderSizeEveryMs: 60_000, maintainEveryMs: 60_000 } as const;

export interface MetricsCollectorDeps {
  db: Db;
  bus: EventBus;
  clock: Clock;
  instances: { runtime(row: InstanceRow): InstanceRuntime; engine(type: InstanceRow['type']): Engine; isLocal(row: Pick<InstanceRow, 'host_id'>): boolean };
  log: { warn(obj: object, msg?: string): void };
  intervalMs?: number;
  sampleTimeoutMs?: number;
  procRoot?: string;
}

interface Sampler {
  sample(at: number): Promise<MetricValues>;
  close(): Promise<void>;
}

interface InstanceState {
  sampler: Sampler;
  seriesId: number;
  cpu: { at: number; ticks: number } | null;
  folder: { at: number; bytes: number } | null;
  /** A folder walk under way: it runs beside the samples, never delaying them. */
  walking: boolean;
  failing: boolean;
}

export class MetricsCollector {
  private readonly states = new Map<string, InstanceState>();
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private lastMaintained = 0;
  private maintaining: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: MetricsCollectorDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs ?? metricsDefaults.intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([this.round, this.maintaining]);
    await Promise.allSettled([...this.states.values()].map((state) => state.sampler.close()));
    this.states.clear();
  }

  private async tick() {
    try {
      await this.sampleOnce();
      const now = this.deps.clock().getTime();
      if (now - this.lastMaintained >= collectorDefaults.maintainEveryMs) {
        this.lastMaintained = now;
        await this.maintain(now);
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, 'metrics sampling failed');
    }
  }

  /** Rolls samples up and drops expired ones (also run by the timer about once a minute). */
  maintain(now = this.deps.clock().getTime()): Promise<void> {
    this.maintaining ??= maintainMetrics(this.deps.db, now).finally(() => (this.maintaining = null));
    return this.maintaining;
  }

  /**
   * One round: samples every running instance not still busy with its previous sample, stores the
   * samples in one write and pushes MetricsAppended to each instance's viewers. Resolves when
   * the round is stored; tests call it directly.
   */
  async sampleOnce(): Promise<void> {
    if (this.closed) return;
    // This host's instances only: another host's agent samples its own.
    const rows = (await allInstanceRows(this.deps.db)).filter((row) => row.status === 'running' && this.deps.instances.isLocal(row));
    await this.forget(new Set(rows.map((row) => row.id)));
    const due = rows.filter((row) => !this.inFlight.has(row.id));
    if (due.length === 0) return;
    const processes = snapshotProcesses(this.deps.procRoot);
    const at = this.deps.clock().getTime();
    const settled = await Promise.allSettled(due.map((row) => this.sampleInstance(row, at, processes)));
    const samples = due.flatMap((row, i) => {
      const outcome = settled[i];
      return outcome.status === 'fulfilled' && outcome.value ? [{ row, ...outcome.value }] : [];
    });
    if (samples.length === 0 || this.closed) return;
    const stored = samples.map(({ seriesId, values }) => ({ seriesId, resolution: 0, at, data: encodeValues(values) }));
    // One write a round; an instance deleted meanwhile (its series gone) must not cost the others theirs.
    await insertSamples(this.deps.db, stored).catch(() =>
      Promise.allSettled(stored.map((row) => insertSamples(this.deps.db, [row]))),
    );
    const members = await memberIdsOfInstances(this.deps.db, samples.map(({ row }) => row.id));
    for (const { row, values } of samples) {
      this.deps.bus.publish({
        event: 'MetricsAppended',
        payload: { instanceId: row.id, at, values },
        audience: { kind: 'scoped', groups: [hubGroupNames.instance(row.id)], userIds: members.get(row.id) ?? [] },
      });
    }
  }

  /** Drops the state (and the open connection) of instances no longer running. */
  private async forget(running: Set<string>) {
    for (const [id, state] of this.states) {
      if (running.has(id) || this.inFlight.has(id)) continue;
      this.states.delete(id);
      await state.sampler.close();
    }
  }

  private async sampleInstance(row: InstanceRow, at: number, processes: Map<number, ProcessEntry>) {
    this.inFlight.add(row.id);
    let engineSample: Promise<MetricValues> | undefined;
    let timer: NodeJS.Timeout | undefined;
    const state = await this.stateOf(row).catch((error: unknown) => {
      this.inFlight.delete(row.id);
      throw error;
    });
    try {
      const ms = this.deps.sampleTimeoutMs ?? collectorDefaults.sampleTimeoutMs;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      });
      engineSample = state.sampler.sample(at);
      const values = await Promise.race([engineSample, deadline]);
      Object.assign(values, this.processValues(row, state, at, processes));
      this.refreshFolderSize(row, state, at);
      if (state.folder) values.data_dir_bytes = state.folder.bytes;
      state.failing = false;
      return { seriesId: state.seriesId, values };
    } catch (error) {
      // Said once per run of failures: an instance that cannot answer would otherwise fill the log.
      if (!state.failing) this.deps.log.warn({ instanceId: row.id, reason: error instanceof Error ? error.message : String(error) }, 'metrics sample failed');
      state.failing = true;
      return null;
    } finally {
      clearTimeout(timer);
      // A sample past its deadline still holds the instance until it ends: no two at once.
      void (engineSample ?? Promise.resolve()).catch(() => undefined).finally(() => this.inFlight.delete(row.id));
    }
  }

  private async stateOf(row: InstanceRow): Promise<InstanceState> {
    let state = this.states.get(row.id);
    if (!state) {
      const rt = this.deps.instances.runtime(row);
      state = {
        sampler: row.type === 'pg' ? new PgSampler(rt) : new EtcdSampler(rt),
        seriesId: await seriesIdOf(this.deps.db, row.id),
        cpu: null,
        folder: null,
        walking: false,
        failing: false,
      };
      this.states.set(row.id, state);
    }
    return state;
  }

  private processValues(row: InstanceRow, state: InstanceState, at: number, processes: Map<number, ProcessEntry>): MetricValues {
    const pid = this.deps.instances.engine(row.type).pid(this.deps.instances.runtime(row));
    const tree = pid === null ? [] : processTree(pid, processes);
    if (tree.length === 0) return {};
    const current = { at, ticks: cpuTicksOf(tree, processes) };
    const previous = state.cpu;
    state.cpu = current;
    const values: MetricValues = { rss_bytes: residentBytes(tree, this.deps.procRoot) };
    const cpu = previous && cpuPercent(previous, current);
    if (cpu !== undefined && cpu !== null) values.cpu_percent = cpu;
    return values;
  }

  /** Walks the instance folder at most once a minute, in the background, keeping the last size. */
  private refreshFolderSize(row: InstanceRow, state: InstanceState, at: number) {
    if (state.walking || (state.folder && at - state.folder.at < collectorDefaults.folderSizeEveryMs)) return;
    state.walking = true;
    void folderBytes(this.deps.instances.runtime(row).dir)
      .then(async (bytes) => {
        state.folder = { at, bytes };
        await setMeasuredSize(this.deps.db, state.seriesId, bytes);
      })
      .catch((error: unknown) => this.deps.log.warn({ err: error, instanceId: row.id }, 'measuring the data folder failed'))
      .finally(() => (state.walking = false));
  }
}
