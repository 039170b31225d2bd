import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { Backup, BackupCompletedPayload, BackupProgressPayload } from '../contracts/backups';
import type { Instance, OperationCompletedPayload } from '../contracts/instances';
import type { RecoveryTarget, RecoveryWindow, RestorePlan } from '../contracts/pitr';
import { buildApp } from '../server/app';
import { allInstanceRows } from '../server/db/instances';
import { openDb } from '../server/db/open';
import type { InstanceRuntime } from '../server/engines/engine';
import { instanceUser, removeInstanceUser } from '../server/engines/instanceUsers';
import { pgSocketDir, pgSuperuserPassword } from '../server/engines/pg';
import type { PgArchive } from '../server/engines/pgArchive';
import { replaySettings } from '../server/engines/pgPointRestore';
import { giveToEngineUser, isAlive } from '../server/engines/processRunner';
import { InProcessBus } from '../server/hub/bus';
import { adminApi } from './lib/adminApi';
import { benchConfig } from './lib/benchConfig';
import { loadAverage, median, percentile, table, whole } from './lib/figures';
import { pgTool, type PgToolTarget } from './lib/pgTool';
import { recordPublished } from './lib/publishedEvents';
import { lsnBytes, segmentEnd, segmentLags, segmentName, walSegmentBytes, type ArchiverSample } from './lib/walSegments';

// `npm run bench -- pitr [--quick] [--rounds=N]`: point-in-time recovery of a real PostgreSQL 15 instance through Warden
// (pgBackRest), beside the same pgBackRest commands run by hand on the same cluster and repository:
// a full physical backup (and Warden's logical dump), a restore to a moment near the end of a gigabyte
// of WAL, how late WAL reaches the archive under write load, and what a lost data folder costs.

const quick = process.argv.includes('--quick');
const sizes = quick
  ? { scale: 8, walBytes: 64 * 1024 * 1024, rpoLoadSeconds: 6, textRows: 400_000 }
  : { scale: 70, walBytes: 1024 * 1024 * 1024, rpoLoadSeconds: 20, textRows: 6_500_000 };
/**
 * Rounds of the alternations; --rounds=N for other counts of both. pgBackRest's own full backup of
 * the same data varies by a second from run to run here (the checkpoint, and the wait for the last
 * segment's archiving), so backups take 7 rounds; medians of 3 restores hold up.
 */
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='));
const backupRounds = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : quick ? 1 : 7;
const restoreRounds = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : quick ? 1 : 3;
const textRounds = restoreRounds;
const minimumDatabaseBytes = 1024 * 1024 * 1024;
const database = 'app';
/** Away from the default range, the server tests' 16400+ and bench/backups' 17400+. */
const instancePorts = '17500-17599';
/** How far before the end of the write load the restore to a moment aims. */
const targetBeforeEndMs = 2000;
const pgBinDir = '/usr/lib/postgresql/15/bin';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const gib = (bytes: number) => bytes / 1024 ** 3;
const ratio = (a: number, b: number) => (a / b).toFixed(3);

// ---- The server, as an operator's tools see it ----

/** A superuser session over a socket. */
async function connect(socket: string, port: number, secret: string, dbName = database): Promise<Client> {
  const client = new Client({ host: socket, port, user: 'postgres', database: dbName, password: secret, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function one<T>(client: Client, sql: string): Promise<T> {
  return (await client.query(sql)).rows[0] as T;
}

/** Runs `step` every `intervalMs` (start to start) until stopped or until it throws (its server is gone). */
function repeat(intervalMs: number, step: () => Promise<void>) {
  let running = true;
  const done = (async () => {
    while (running) {
      const began = performance.now();
      try {
        await step();
      } catch {
        return;
      }
      await sleep(Math.max(0, intervalMs - (performance.now() - began)));
    }
  })();
  return async () => {
    running = false;
    await done;
  };
}

/** A commit every 100 ms into `heartbeat`, each remembered once acknowledged, with a WAL position at or past its commit record. */
function heartbeat(client: Client) {
  const acked: { id: number; at: Date; walAfter: number | null }[] = [];
  const stop = repeat(100, async () => {
    const row = await one<{ id: string; at: Date }>(client, 'insert into heartbeat default values returning id, at');
    const commit = { id: Number(row.id), at: row.at, walAfter: null as number | null };
    acked.push(commit);
    commit.walAfter = lsnBytes((await one<{ lsn: string }>(client, 'select pg_current_wal_insert_lsn()::text as lsn')).lsn);
  });
  return { acked, stop };
}

const segmentPattern = /^[0-9A-F]{24}$/;

/** The write position and the archiver every 0.25 s, on the server's clock: under load a segment ends every half second or so. */
function archiverWatch(client: Client) {
  const samples: ArchiverSample[] = [];
  const stop = repeat(250, async () => {
    const row = await one<{ lsn: string; at: Date; wal: string | null; archived: Date | null }>(
      client,
      'select pg_current_wal_lsn()::text as lsn, clock_timestamp() as at, last_archived_wal as wal, last_archived_time as archived from pg_stat_archiver',
    );
    // A backup's history file (…30.00000028.backup) is archived before its segment ends: only segments count.
    const previous = samples.at(-1);
    const isSegment = row.wal !== null && segmentPattern.test(row.wal);
    samples.push({
      at: row.at.getTime(),
      writtenTo: lsnBytes(row.lsn),
      lastArchivedWal: isSegment ? row.wal : (previous?.lastArchivedWal ?? null),
      lastArchivedAt: isSegment ? row.archived!.getTime() : (previous?.lastArchivedAt ?? null),
    });
  });
  return { samples, stop };
}

/** Waits until the archiver has archived `segment` (or a later one). */
async function archivedThrough(client: Client, segment: string, timeoutMs = 5 * 60_000) {
  for (const began = performance.now(); performance.now() - began < timeoutMs; await sleep(250)) {
    const { wal } = await one<{ wal: string | null }>(client, 'select last_archived_wal as wal from pg_stat_archiver');
    if (wal !== null && wal.slice(0, 24) >= segment) return;
  }
  throw new Error(`segment ${segment} was not archived within ${timeoutMs / 1000} s`);
}

/** Ends the current segment and waits until it is archived: answers its name. */
async function switchAndArchive(client: Client): Promise<string> {
  const { segment } = await one<{ segment: string }>(client, 'select pg_walfile_name(pg_switch_wal()) as segment');
  await archivedThrough(client, segment);
  return segment;
}

/** Apparent bytes of every file under a folder (du -sb). */
function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

/** The newest WAL segment in a repository's archive folder (its files are `<segment>-<sha1>.lz4`). */
function newestArchivedSegment(archiveDir: string): string | null {
  const names = readdirSync(archiveDir, { recursive: true })
    .map((entry) => /^([0-9A-F]{24})-/.exec(path.basename(String(entry)))?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
  return names.at(-1) ?? null;
}

/** The transactions a pgbench run reports it processed. */
const pgbenchTransactions = (stdout: string) => Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? 0);

interface RestoredState {
  rows: number;
  newestAt: Date | null;
  balance: string;
}

/** What a restored copy holds: the heartbeat rows and a sum over every account, to compare copies by. */
async function restoredState(client: Client): Promise<RestoredState> {
  const { rows, newestAt } = await one<{ rows: number; newestAt: Date | null }>(client, 'select count(*)::int as rows, max(at) as "newestAt" from heartbeat');
  const { balance } = await one<{ balance: string }>(client, 'select sum(abalance)::text as balance from pgbench_accounts');
  return { rows, newestAt, balance };
}

async function main() {
  // Bounded whatever happens: a stuck backup or restore must not keep the bench alive.
  setTimeout(() => {
    console.error('bench/pitr: gave up after 30 min');
    process.exit(1);
  }, 30 * 60_000).unref();

  const started = performance.now();
  const loadAtStart = loadAverage();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-pitr-'));
  // The instances' own users must pass through the data dir to reach their folders.
  chmodSync(dataDir, 0o711);
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts, WARDEN_PITR: 'on' });
  console.log(
    `Point-in-time recovery of a real PostgreSQL 15 instance created through Warden (${execFileSync(config.pitr!.bin, ['version']).toString().trim()}, local repository, ` +
      `lz4, archive-async, archive_timeout 60 s), filled by pgbench -i -s ${sizes.scale} into database "${database}". ` +
      "Warden's calls go over loopback HTTP and end when Warden publishes their end; the plain runs are the same pgBackRest " +
      "commands, with the instance's own pgbackrest.conf and stanza, run as the instance's user.\n" +
      `Load average (1/5/15 min) at start: ${loadAtStart} on ${os.cpus().length} CPUs.\n`,
  );

  const origin = new URL(config.publicUrl).origin;
  const db = openDb(config);
  const bus = new InProcessBus();
  const { published, whenPublished } = recordPublished(bus);
  const app = buildApp(config, { db, bus, logger: false });

  const notes: string[] = [];
  const note = (line: string) => {
    notes.push(line);
    console.log(line);
  };
  const clients: Client[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  const plainDir = path.join(dataDir, 'plain-restore');
  let plainPostgres: number | null = null;
  const tables: string[] = [];

  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const api = await adminApi(db, baseUrl, origin);
    /** Waits for the instance's operation of this kind to complete with the instance running. */
    const operated = async (instanceId: string, kind: string, timeoutMs: number) => {
      const { payload, at } = await whenPublished<OperationCompletedPayload>('OperationCompleted', (p) => p.instanceId === instanceId && p.kind === kind, timeoutMs);
      if (!payload.ok) throw new Error(`${kind} of ${instanceId} failed: ${payload.error}`);
      const instance = await api<Instance>('GET', `/instances/${instanceId}`);
      if (instance.status !== 'running') throw new Error(`${kind} of ${instance.name} left it ${instance.status}: ${instance.statusReason}`);
      return { instance, at };
    };
    const runtimeOf = (instance: Instance): InstanceRuntime => app.instances.runtime({ id: instance.id, port: instance.port, peer_port: null });
    const superuserSession = async (instance: Instance, dbName = database) => {
      const rt = runtimeOf(instance);
      const client = await connect(pgSocketDir(rt), instance.port, pgSuperuserPassword(rt), dbName);
      clients.push(client);
      return client;
    };
    const takeBackup = async (instanceId: string, body: object) => {
      const postedAt = performance.now();
      const backup = await api<Backup>('POST', `/instances/${instanceId}/backups/database/backup`, body);
      const done = await whenPublished<BackupCompletedPayload>('BackupCompleted', (p) => p.backup.id === backup.id, 30 * 60_000);
      if (done.payload.backup.status !== 'succeeded') throw new Error(`backup ${backup.id} ${done.payload.backup.status}: ${done.payload.backup.error}`);
      await app.backups.idle();
      return { ms: done.at - postedAt, backup: done.payload.backup };
    };
    /**
     * Stops an instance whose engine died, so that Warden stops starting it again: each start ends every
     * process of the instance's user, and a restore from the instance runs as that user.
     */
    const stopCrashed = async (instanceId: string) => {
      for (const began = performance.now(); ; await sleep(250)) {
        try {
          await api<Instance>('POST', `/instances/${instanceId}/stop`, {});
          break;
        } catch (error) {
          // 409 while Warden's own start of it runs.
          if (performance.now() - began > 60_000) throw new Error('the crashed instance could not be stopped', { cause: error });
        }
      }
      await whenPublished<OperationCompletedPayload>('OperationCompleted', (p) => p.instanceId === instanceId && p.kind === 'stop', 60_000);
    };
    /** Restores through Warden into a new instance and waits until it runs. */
    const wardenRestore = async (sourceId: string, name: string, target: RecoveryTarget) => {
      const postedAt = performance.now();
      const made = await api<Instance>('POST', `/instances/${sourceId}/restore-point`, { name, target });
      const { instance, at } = await operated(made.id, 'clone', 30 * 60_000);
      const restoredFrom = (await api<RecoveryWindow>('GET', `/instances/${instance.id}/recovery-window`)).restoredFrom;
      return { instance, ms: at - postedAt, restoredFrom };
    };

    // ---- 1. A real instance, filled ----

    let phase = performance.now();
    const made = await api<Instance>('POST', '/instances', { name: 'bench-pitr', type: 'pg' });
    const { instance: source } = await operated(made.id, 'create', 120_000);
    const rt = runtimeOf(source);
    const secret = pgSuperuserPassword(rt);
    const archive = app.pointInTime.archive;
    if (!archive) throw new Error(`Warden does not archive WAL here: ${(await api<RecoveryWindow>('GET', `/instances/${source.id}/recovery-window`)).reason}`);
    const repo = archive.repoPath(rt);
    const target: PgToolTarget = { user: instanceUser(rt), socket: pgSocketDir(rt), port: source.port, password: secret };
    note(`instance ${source.name} (PostgreSQL ${source.engineVersion}, port ${source.port}) created and running in ${seconds(performance.now() - phase)} s`);

    const sql = await superuserSession(source);
    await sql.query('create table heartbeat (id bigserial primary key, at timestamptz not null default clock_timestamp())');
    phase = performance.now();
    await pgTool(target, 'pgbench', ['-i', '-q', '-s', String(sizes.scale), database]);
    await sql.query('vacuum analyze');
    await sql.query('checkpoint');
    const { timeline } = await one<{ timeline: number }>(sql, 'select timeline_id as timeline from pg_control_checkpoint()');
    const { databaseBytes, clusterBytes } = await one<{ databaseBytes: string; clusterBytes: string }>(
      sql,
      `select pg_database_size('${database}') as "databaseBytes", (select sum(pg_database_size(datname)) from pg_database) as "clusterBytes"`,
    );
    // Everything the fill wrote is archived before a backup is timed, as it would be long after a load.
    await switchAndArchive(sql);
    note(
      `pgbench -i -s ${sizes.scale}: ${database} ${mib(Number(databaseBytes))} MiB (every database ${mib(Number(clusterBytes))} MiB), ` +
        `filled, vacuumed and archived in ${seconds(performance.now() - phase)} s`,
    );
    if (!quick && Number(databaseBytes) < minimumDatabaseBytes) throw new Error(`the full run needs at least 1 GiB in ${database}; raise the scale`);

    // ---- 2. Backups: Warden's physical full beside a plain pgbackrest full, and Warden's dump ----

    // pgbench's tables hold numbers and a blank filler column: pg_dump writes them out as a few MiB, so
    // the dump is at its best there. The same comparison runs first on a second database of text that
    // compresses as application data does (hex digests, about 2:1), dropped before the rest.
    phase = performance.now();
    await sql.query("create database text_rows");
    const text = await superuserSession(source, 'text_rows');
    await text.query('create table documents (id bigint primary key, body text not null)');
    await text.query(
      `insert into documents select g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) || md5((g * 31)::text) from generate_series(1, ${sizes.textRows}) g`,
    );
    await text.query('vacuum analyze documents');
    const { textBytes } = await one<{ textBytes: string }>(text, "select pg_database_size('text_rows') as \"textBytes\"");
    await switchAndArchive(sql);
    note(`text_rows: ${whole(sizes.textRows)} rows of 128 hex characters, ${mib(Number(textBytes))} MiB, filled and archived in ${seconds(performance.now() - phase)} s`);
    const textRuns: { full: number; dump: number; dumpBytes: number; label: string }[] = [];
    for (let round = 1; round <= textRounds; round++) {
      const full = await takeBackup(source.id, { kind: 'full' });
      const dump = await takeBackup(source.id, {});
      textRuns.push({ full: full.ms, dump: dump.ms, dumpBytes: dump.backup.sizeBytes ?? 0, label: full.backup.contents?.physical?.label ?? '' });
      console.log(`backups with text_rows, round ${round}: Warden full ${seconds(full.ms)} s, Warden dump ${seconds(dump.ms)} s (load ${loadAverage()})`);
    }
    {
      const sets = new Map(((await archive.info(rt))?.backup ?? []).map((set) => [set.label, set]));
      const fullMs = median(textRuns.map((r) => r.full));
      const dumpMs = median(textRuns.map((r) => r.dump));
      const stored = median(textRuns.map((r) => sets.get(r.label)?.info.repository.delta ?? 0));
      const dumped = median(textRuns.map((r) => r.dumpBytes));
      tables.push(
        table([
          [`backup of ${database} and text_rows (${mib(Number(clusterBytes) + Number(textBytes))} MiB), median of ${textRounds}`, 'seconds', 'stored MiB'],
          ["Warden's physical full (pgBackRest)", seconds(fullMs), mib(stored)],
          ["Warden's logical dump (pg_dump -Fc)", seconds(dumpMs), mib(dumped)],
          ['  physical / dump (Warden)', ratio(fullMs, dumpMs), ratio(stored, dumped)],
        ]),
      );
    }
    await sql.query('drop database text_rows with (force)');
    await switchAndArchive(sql);

    /** Warden's full physical backup, timed from the POST to BackupCompleted: its pgBackRest label. */
    const wardenFull = async () => {
      const { ms, backup } = await takeBackup(source.id, { kind: 'full' });
      const label = backup.contents?.physical?.label;
      if (!label) throw new Error(`Warden's full backup has no pgBackRest label: ${JSON.stringify(backup.contents)}`);
      const progress = published.filter((e) => e.event === 'BackupProgress' && (e.payload as BackupProgressPayload).backupId === backup.id).map((e) => (e.payload as BackupProgressPayload).percent ?? 0);
      return { ms, label, progress };
    };
    const plainFull = async () => {
      const began = performance.now();
      await archive.command(rt, ['backup', '--type=full'], { password: secret, timeoutMs: 60 * 60_000 });
      const ms = performance.now() - began;
      return { ms, label: (await archive.info(rt))!.backup.at(-1)!.label };
    };
    const wardenRuns: { ms: number; label: string; progress?: number[] }[] = [];
    const plainRuns: { ms: number; label: string }[] = [];
    const dumpRuns: { ms: number; bytes: number }[] = [];
    let backupBytesAfterOne = 0;
    for (let round = 1; round <= backupRounds; round++) {
      // Which goes first alternates, so that cache warmth and drift favour neither.
      if (round % 2 === 1) {
        // The text_rows sets are in the repository already: one full of the pgbench data is what it adds.
        const before = round === 1 ? folderBytes(path.join(repo, 'backup')) : 0;
        wardenRuns.push(await wardenFull());
        if (round === 1) backupBytesAfterOne = folderBytes(path.join(repo, 'backup')) - before;
        plainRuns.push(await plainFull());
      } else {
        plainRuns.push(await plainFull());
        wardenRuns.push(await wardenFull());
      }
      const dump = await takeBackup(source.id, {});
      dumpRuns.push({ ms: dump.ms, bytes: dump.backup.sizeBytes ?? 0 });
      const reports = wardenRuns.at(-1)!.progress ?? [];
      console.log(`backups, round ${round}: Warden full ${seconds(wardenRuns.at(-1)!.ms)} s (${reports.length} progress reports, ${reports.map((p) => `${p}%`).join(' ')}), plain full ${seconds(plainRuns.at(-1)!.ms)} s, Warden dump ${seconds(dump.ms)} s (load ${loadAverage()})`);
    }
    const sets = new Map(((await archive.info(rt))?.backup ?? []).map((set) => [set.label, set]));
    const storedOf = (runs: { label: string }[]) => median(runs.map((run) => sets.get(run.label)!.info.repository.delta));
    const wardenBackupMs = median(wardenRuns.map((run) => run.ms));
    const plainBackupMs = median(plainRuns.map((run) => run.ms));
    const dumpMs = median(dumpRuns.map((run) => run.ms));
    const dumpBytes = median(dumpRuns.map((run) => run.bytes));
    const dataOfSet = sets.get(wardenRuns[0].label)!.info.size;
    tables.push(
      table([
        [`backup of ${mib(dataOfSet)} MiB, median of ${backupRounds}`, 'seconds', 'stored MiB'],
        ["Warden's physical full (pgBackRest)", seconds(wardenBackupMs), mib(storedOf(wardenRuns))],
        ['plain pgbackrest backup --type=full', seconds(plainBackupMs), mib(storedOf(plainRuns))],
        ['  Warden / plain', ratio(wardenBackupMs, plainBackupMs), ratio(storedOf(wardenRuns), storedOf(plainRuns))],
        ["Warden's logical dump (pg_dump -Fc)", seconds(dumpMs), mib(dumpBytes)],
        ['  physical / dump (Warden)', ratio(wardenBackupMs, dumpMs), ratio(storedOf(wardenRuns), dumpBytes)],
      ]),
    );

    // ---- 3. A gigabyte of WAL under write load, and how late each segment reached the archive ----

    const beat = heartbeat(await superuserSession(source));
    stoppers.push(beat.stop);
    const startSegment = await switchAndArchive(sql);
    const archiveBytesBefore = folderBytes(path.join(repo, 'archive'));
    const watch = archiverWatch(await superuserSession(source));
    stoppers.push(watch.stop);
    const walFrom = segmentEnd(startSegment);
    const writtenTo = async () => lsnBytes((await one<{ lsn: string }>(sql, 'select pg_current_wal_lsn()::text as lsn')).lsn);
    phase = performance.now();
    let transactions = 0;
    let chunkSeconds = quick ? 4 : 15;
    for (let written = 0; written < sizes.walBytes; ) {
      transactions += pgbenchTransactions((await pgTool(target, 'pgbench', ['-n', '-M', 'prepared', '-c', '2', '-j', '2', '-T', String(chunkSeconds), database])).stdout);
      written = (await writtenTo()) - walFrom;
      // The next run is sized from the pace so far, so the last one overshoots little.
      const pace = written / ((performance.now() - phase) / 1000);
      chunkSeconds = Math.min(120, Math.max(3, Math.ceil((sizes.walBytes - written) / pace) + 1));
    }
    const loadMs = performance.now() - phase;
    const loadEndedAt = (await one<{ now: Date }>(sql, 'select clock_timestamp() as now')).now;
    const walWritten = (await writtenTo()) - walFrom;
    // The segments the load ended are archived before the watch stops, so each has its lag.
    const lastEnded = segmentName(timeline, Math.floor((walFrom + walWritten) / walSegmentBytes) * walSegmentBytes - 1);
    await archivedThrough(sql, lastEnded);
    await sleep(600);
    await watch.stop();
    const archiveBytesAfter = folderBytes(path.join(repo, 'archive'));
    const archivedWal = segmentEnd(lastEnded) - walFrom;
    const lags = segmentLags(watch.samples, timeline).map((l) => (l.archivedAt - l.endedAt) / 1000);
    const { archiveTimeout } = await one<{ archiveTimeout: string }>(sql, "select setting as \"archiveTimeout\" from pg_settings where name = 'archive_timeout'");
    const segmentsPerMinute = walWritten / walSegmentBytes / (loadMs / 60_000);
    note(
      `write load: pgbench -c 2 -j 2 -M prepared, ${whole(transactions)} transactions in ${seconds(loadMs)} s (${whole(transactions / (loadMs / 1000))} tps), ` +
        `${mib(walWritten)} MiB of WAL (${mib(walWritten / (loadMs / 1000))} MiB/s), ${lags.length} segments ended and archived`,
    );

    tables.push(
      table([
        [`archive under write load (${lags.length} segments)`, 'value'],
        ['WAL written since the newest full backup, MiB', mib(walWritten + walFrom - lsnBytes([...sets.values()].at(-1)!.lsn.stop))],
        ['segment switches per minute', segmentsPerMinute.toFixed(1)],
        ['  seconds between switches', (60 / segmentsPerMinute).toFixed(2)],
        ['  archive_timeout, s', archiveTimeout],
        ['segment ended → archived, p50 s', percentile(lags, 50).toFixed(2)],
        ['segment ended → archived, p99 s', percentile(lags, 99).toFixed(2)],
        ['segment ended → archived, max s', Math.max(...lags).toFixed(2)],
      ]),
    );

    // ---- 4. A restore to a moment near the end: through Warden, and by hand ----

    const targetTime = new Date(loadEndedAt.getTime() - targetBeforeEndMs);
    const recoveryTarget: RecoveryTarget = { time: targetTime.toISOString() };
    // Warden's window reaches a moment once one of its readings of where the server writes, taken at or
    // after it, is archived; the readings come every probe interval (5 s) and with each look at the window,
    // as the console's restore form takes. Without one between the target and the switch below, the
    // window waits for the next segment switch: archive_timeout (60 s) on a quiet server.
    await api<RecoveryWindow>('GET', `/instances/${source.id}/recovery-window`);
    await switchAndArchive(sql);
    const planBegan = performance.now();
    let plan: RestorePlan | null = null;
    while (plan === null) {
      try {
        plan = await api<RestorePlan>('POST', `/instances/${source.id}/restore-point`, { name: 'plan', target: recoveryTarget, dryRun: true });
      } catch (error) {
        if (performance.now() - planBegan > 90_000) throw new Error('Warden refused a target already archived for 90 s', { cause: error });
        await sleep(500);
      }
    }
    const planWaitMs = performance.now() - planBegan;
    note(
      `restore target ${targetTime.toISOString()} (${targetBeforeEndMs / 1000} s before the load ended): Warden plans backup ${plan.backup.id}, ` +
        `${plan.walSegments} segments (${mib(plan.walBytes)} MiB) of WAL to replay; its window reached the target ${seconds(planWaitMs)} s after the archive held it`,
    );

    const restoreArgs = [`--set=${plan.backup.id}`, '--type=time', `--target=${targetTime.toISOString().replace('T', ' ').replace('Z', '+00')}`, '--target-action=promote'];
    const byWarden = async (round: number) => {
      const restored = await wardenRestore(source.id, `bench-pitr-at-time-${round}`, recoveryTarget);
      const copy = await superuserSession(restored.instance);
      const state = await restoredState(copy);
      await copy.end();
      await app.instances.delete(restored.instance.id, true);
      return { ms: restored.ms, recoveryMs: (restored.restoredFrom?.recoverySeconds ?? 0) * 1000, state };
    };
    /** By hand, with the restored cluster's own settings, or with the replay settings Warden gives its recovering server. */
    const byHand = async (settings: string[] = []) => {
      const run = await plainRestore({ archive, rt, secret, dir: plainDir, args: restoreArgs, settings, started: (pid) => (plainPostgres = pid) });
      plainPostgres = null;
      return { ...run, ms: run.restoreMs + run.recoveryMs };
    };
    const tuned = replaySettings(null);
    const byHandTuned = () => byHand(tuned);
    // One restore by hand first, not counted: the first restore after the load reads the backup and the
    // WAL from disk (1.2 s more of pgbackrest restore, measured), and would charge that to whichever side went first.
    await byHand();
    const wardenRestores: Awaited<ReturnType<typeof byWarden>>[] = [];
    const plainRestores: Awaited<ReturnType<typeof byHand>>[] = [];
    const tunedRestores: Awaited<ReturnType<typeof byHand>>[] = [];
    for (let round = 1; round <= restoreRounds; round++) {
      // The three take turns going first.
      const turns = [async () => wardenRestores.push(await byWarden(round)), async () => plainRestores.push(await byHand()), async () => tunedRestores.push(await byHandTuned())];
      for (let i = 0; i < turns.length; i++) await turns[(i + round - 1) % turns.length]();
      const w = wardenRestores.at(-1)!;
      const p = plainRestores.at(-1)!;
      const t = tunedRestores.at(-1)!;
      console.log(
        `restores, round ${round}: Warden ${seconds(w.ms)} s (restore and recovery ${seconds(w.recoveryMs)} s), ` +
          `plain ${seconds(p.ms)} s (pgbackrest restore ${seconds(p.restoreMs)} s, recovery ${seconds(p.recoveryMs)} s; then its stop ${seconds(p.stopMs)} s), ` +
          `plain with Warden's replay settings ${seconds(t.ms)} s (recovery ${seconds(t.recoveryMs)} s; then its stop ${seconds(t.stopMs)} s) (load ${loadAverage()})`,
      );
    }
    // Every copy holds the same: the heartbeat rows up to the target, and the same sum over every account.
    const first = wardenRestores[0].state;
    for (const { state } of [...wardenRestores, ...plainRestores, ...tunedRestores]) {
      const atTarget = state.newestAt !== null && state.newestAt <= targetTime && targetTime.getTime() - state.newestAt.getTime() < 1000;
      if (!atTarget || state.rows !== first.rows || state.balance !== first.balance) {
        throw new Error(`a copy differs or misses the target: ${JSON.stringify(state)}, the first Warden copy ${JSON.stringify(first)}`);
      }
    }
    note(`every copy holds ${whole(first.rows)} heartbeat rows, the newest at ${first.newestAt?.toISOString()}, and the same sum of balances`);
    const wardenMs = median(wardenRestores.map((r) => r.ms));
    const wardenRecoveryMs = median(wardenRestores.map((r) => r.recoveryMs));
    const plainMs = median(plainRestores.map((r) => r.ms));
    const tunedMs = median(tunedRestores.map((r) => r.ms));
    const walMiBPerSecond = (ms: number) => (plan.walBytes / 1024 ** 2 / (ms / 1000)).toFixed(1);
    tables.push(
      table([
        [`restore to ${targetBeforeEndMs / 1000} s before the end (${mib(plan.walBytes)} MiB WAL), medians of ${restoreRounds}`, 'seconds', 'WAL MiB/s'],
        ['Warden POST restore-point → new instance running', seconds(wardenMs), walMiBPerSecond(wardenMs)],
        ['  of which restore + recovery (restoredFrom)', seconds(wardenRecoveryMs), ''],
        ['plain pgbackrest restore + postgres until promoted', seconds(plainMs), walMiBPerSecond(plainMs)],
        ['  of which pgbackrest restore', seconds(median(plainRestores.map((r) => r.restoreMs))), ''],
        ['  of which recovery', seconds(median(plainRestores.map((r) => r.recoveryMs))), ''],
        ['  then a stop of the promoted copy (not counted)', seconds(median(plainRestores.map((r) => r.stopMs))), ''],
        ['  Warden / plain', ratio(wardenMs, plainMs), ''],
        ['  Warden restore + recovery / plain', ratio(wardenRecoveryMs, plainMs), ''],
        [`plain, postgres started with Warden's replay settings (${tuned.filter((a) => a !== '-c').join(', ')})`, seconds(tunedMs), walMiBPerSecond(tunedMs)],
        ['  of which recovery', seconds(median(tunedRestores.map((r) => r.recoveryMs))), ''],
        ['  then a stop of the promoted copy (not counted)', seconds(median(tunedRestores.map((r) => r.stopMs))), ''],
        ['  Warden / plain with the same settings', ratio(wardenMs, tunedMs), ''],
      ]),
    );

    // ---- 5. The data folder lost under write load: what a restore to the latest moment keeps ----

    const load = pgTool(target, 'pgbench', ['-n', '-M', 'prepared', '-c', '2', '-j', '2', '-T', String(sizes.rpoLoadSeconds + 60), database]).catch(() => null);
    await sleep(sizes.rpoLoadSeconds * 1000);
    const postmaster = app.instances.engine('pg').pid(rt);
    if (postmaster === null) throw new Error('the source has no postmaster');
    process.kill(postmaster, 'SIGKILL');
    rmSync(path.join(rt.dir, 'data'), { recursive: true, force: true });
    await beat.stop();
    await load;
    await stopCrashed(source.id);
    const lastArchived = newestArchivedSegment(path.join(repo, 'archive'));
    if (lastArchived === null) throw new Error('the archive holds no segment');
    const archivedEnd = segmentEnd(lastArchived);
    const lastCommit = beat.acked.at(-1)!;
    // The last commit's position may not have been read before the kill: the newest one read stands for it.
    const lastWalAfter = beat.acked.findLast((c) => c.walAfter !== null)?.walAfter ?? archivedEnd;
    const provable = beat.acked.filter((c) => c.walAfter !== null && c.walAfter <= archivedEnd);

    const latest = await wardenRestore(source.id, 'bench-pitr-latest', 'latest');
    const latestCopy = await superuserSession(latest.instance);
    const present = new Set(
      (await latestCopy.query<{ id: string }>('select id from heartbeat where id = any($1::bigint[])', [beat.acked.map((c) => c.id)])).rows.map((r) => Number(r.id)),
    );
    const newest = await one<{ id: string; at: Date }>(latestCopy, 'select id, at from heartbeat order by id desc limit 1');
    await latestCopy.end();
    const missingProvable = provable.filter((c) => !present.has(c.id));
    const lostSeconds = Math.max(0, (lastCommit.at.getTime() - newest.at.getTime()) / 1000);
    note(`restore to the latest moment through Warden: ${seconds(latest.ms)} s, last replayed ${latest.restoredFrom?.lastReplayedAt}`);

    tables.push(
      table([
        [`data folder lost after ${sizes.rpoLoadSeconds} s of write load, restored to latest`, 'value'],
        ['last acknowledged commit', lastCommit.at.toISOString()],
        ['newest row restored', newest.at.toISOString()],
        ['data lost, s', lostSeconds.toFixed(2)],
        ['acknowledged commits lost', `${beat.acked.length - present.size} of ${whole(beat.acked.length)}`],
        ['WAL written past the last archived segment, MiB (at least)', mib(Math.max(0, lastWalAfter - archivedEnd))],
        [`commits before segment ${lastArchived}'s end present`, `${provable.length - missingProvable.length} of ${provable.length}`],
        ['Warden POST restore-point (latest) → running, s', seconds(latest.ms)],
      ]),
    );

    // ---- The repository ----

    const repoBackup = folderBytes(path.join(repo, 'backup'));
    const repoArchive = folderBytes(path.join(repo, 'archive'));
    tables.push(
      table([
        [`repository ${repo}`, 'MiB', 'per GiB'],
        ['backup/ after one full, per GiB of data', mib(backupBytesAfterOne), (backupBytesAfterOne / 1024 ** 2 / gib(dataOfSet)).toFixed(1)],
        ['archive/ for the write load, per GiB of WAL', mib(archiveBytesAfter - archiveBytesBefore), ((archiveBytesAfter - archiveBytesBefore) / 1024 ** 2 / gib(archivedWal)).toFixed(1)],
        [`backup/ at the end (${sets.size} full sets)`, mib(repoBackup), ''],
        ['archive/ at the end', mib(repoArchive), ''],
      ]),
    );
    await app.instances.delete(latest.instance.id, true);
  } finally {
    // Nothing may keep running: loops, servers, instances and their users go, whatever failed above.
    for (const stop of stoppers) await stop().catch(() => undefined);
    for (const client of clients) await client.end().catch(() => undefined);
    if (plainPostgres !== null) await stopPostgres(plainPostgres);
    await app.backups.idle();
    await app.instances.idle();
    for (const row of await allInstanceRows(db)) {
      await app.instances.delete(row.id, true).catch((error: unknown) => console.error(`deleting ${row.name}: ${String(error)}`));
      await removeInstanceUser(row.id);
    }
    await app.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n${tables.join('\n\n')}`);
  console.log(
    `\n${notes.join('\n')}\nLoad average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAverage()}\n` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

// ---- A plain restore by hand: pgbackrest restore into a folder, then postgres on it until promoted ----

interface PlainRestore {
  restoreMs: number;
  recoveryMs: number;
  /** The promoted copy's shutdown (its checkpoint), timed apart. */
  stopMs: number;
  state: RestoredState;
}

/**
 * pgbackrest restore into a folder of the instance's user, then postgres on it (its socket only, no
 * archiving: the copy must not push WAL into the source's repository) until it is out of recovery.
 */
async function plainRestore(input: {
  archive: PgArchive;
  rt: InstanceRuntime;
  secret: string;
  dir: string;
  args: string[];
  /** More of postgres's `-c name=value` options for the recovery. */
  settings: string[];
  started: (pid: number) => void;
}): Promise<PlainRestore> {
  const user = instanceUser(input.rt);
  const data = path.join(input.dir, 'data');
  const socket = path.join(input.dir, 'run');
  for (const dir of [input.dir, data, socket]) {
    mkdirSync(dir, { mode: 0o700 });
    giveToEngineUser(user, dir);
  }
  const restoreBegan = performance.now();
  await input.archive.command(input.rt, ['restore', `--pg1-path=${data}`, ...input.args], { binds: [input.dir], timeoutMs: 60 * 60_000 });
  const restoreMs = performance.now() - restoreBegan;

  const recoveryBegan = performance.now();
  const logFile = path.join(input.dir, 'postgres.log');
  const log = openSync(logFile, 'a');
  // It listens on its own socket folder only: the port names the socket file, no other server's.
  const port = 5432;
  const child = spawn(
    path.join(pgBinDir, 'postgres'),
    ['-D', data, '-c', `port=${port}`, '-c', 'listen_addresses=', '-c', `unix_socket_directories=${socket}`, '-c', 'archive_mode=off', '-c', 'logging_collector=off', ...input.settings],
    { ...(user && { uid: user.uid, gid: user.gid }), cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  child.on('error', () => undefined);
  const pid = child.pid!;
  input.started(pid);
  try {
    for (;;) {
      if (!isAlive(pid)) throw new Error(`postgres stopped during recovery: ${readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n')}`);
      const client = await connect(socket, port, input.secret, 'postgres').catch(() => null);
      const recovering = client && (await one<{ recovering: boolean }>(client, 'select pg_is_in_recovery() as recovering')).recovering;
      await client?.end();
      if (recovering === false) break;
      await sleep(250);
    }
    const recoveryMs = performance.now() - recoveryBegan;
    const copy = await connect(socket, port, input.secret);
    const state = await restoredState(copy);
    await copy.end();
    // Not part of the plain restore: what a stop of the promoted copy costs, as Warden's restore stops it to hand it over.
    const stopBegan = performance.now();
    await stopPostgres(pid);
    return { restoreMs, recoveryMs, stopMs: performance.now() - stopBegan, state };
  } finally {
    await stopPostgres(pid);
    rmSync(input.dir, { recursive: true, force: true });
  }
}

async function stopPostgres(pid: number) {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 60_000 && isAlive(pid); waited += 100) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
