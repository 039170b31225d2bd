import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Backup, BackupCompletedPayload, BackupProgressPayload } from '../contracts/backups';
import type { Instance, OperationCompletedPayload } from '../contracts/instances';
import { buildApp } from '../server/app';
import { openDb } from '../server/db/open';
import { pgSocketDir } from '../server/engines/pg';
import { giveToEngineUser } from '../server/engines/processRunner';
import { instanceUser } from '../server/engines/instanceUsers';
import { InProcessBus } from '../server/hub/bus';
import { adminApi } from './lib/adminApi';
import { benchConfig } from './lib/benchConfig';
import { pgTool, type PgToolTarget } from './lib/pgTool';
import { recordPublished } from './lib/publishedEvents';
import { loadAverage, median, table } from './lib/figures';

// `npm run bench -- backups [--quick] [--scale=N] [--rounds=N]`: Warden's database backup of a real PostgreSQL 15 instance filled by
// pgbench, timed from the POST to BackupCompleted over loopback HTTP, taking turns with a plain `pg_dump -Fc` of
// the same database and with the same work done plainly (every database and the globals); then a clone from the
// backup beside a plain pg_restore of the plain dump.

const quick = process.argv.includes('--quick');
/** pgbench scale: 20 ≈ 300 MB on disk (the full run insists on it); 2 ≈ 30 MB for a quick look; --scale=N for another size. */
const scaleArg = process.argv.find((a) => a.startsWith('--scale='));
const scale = scaleArg ? Number(scaleArg.slice('--scale='.length)) : quick ? 2 : 20;
const minimumFullBytes = 300 * 1024 * 1024;
/** Rounds of the alternation: the medians of 5 hold up on a loaded machine where single rounds swing by a third; --rounds=N for another count. */
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='));
const rounds = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : quick ? 1 : 5;
const database = 'bench';
/** Away from the default range and the server tests' 16400+, so a dev server or a test run beside it does not collide. */
const instancePorts = '17400-17499';
const targetRatio = 1.1;

// ---- Tools run as an operator would: the engine user, over the instance's socket ----

type Target = PgToolTarget;

/** One value from the instance, through psql. */
async function psqlValue(target: Target, dbName: string, sql: string): Promise<string> {
  return (await pgTool(target, 'psql', ['-X', '-At', '-d', dbName, '-c', sql])).stdout;
}

// ---- Figures ----

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** USER_HZ: the unit of /proc/<pid>/stat's times on Linux. */
const ticksPerSecond = 100;

/** CPU seconds a process and its reaped children have used (utime, stime, cutime, cstime of /proc/<pid>/stat). */
function cpuSecondsOf(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the parenthesised name: field 3 (state) is index 0, so fields 14–17 are indexes 11–14.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0) / ticksPerSecond;
}

interface WardenRun {
  totalMs: number;
  /** POST → the archive step begins: globals, pg_dump of every database, the row counts beside them. */
  dumpMs: number;
  /** Archive step → BackupCompleted: tar writing the archive from the dumps, its sha256 read back while it is fsynced, rename, bookkeeping. */
  packMs: number;
  cpuSeconds: number;
  backup: Backup;
}

interface PlainRun {
  ms: number;
  cpuSeconds: number;
  file: string;
}

async function main() {
  // Bounded whatever happens: a stuck backup or restore must not keep the bench alive.
  setTimeout(() => {
    console.error('bench/backups: gave up after 40 min');
    process.exit(1);
  }, 40 * 60_000).unref();

  const started = performance.now();
  const loadAtStart = loadAverage();
  console.log(
    `Database backup of a real PostgreSQL 15 instance created through Warden and filled by pgbench -i -s ${scale} into database "${database}": ` +
      `Warden's backup (POST …/backups/database/backup over loopback HTTP → BackupCompleted published) taking turns ${rounds}× with a plain ` +
      '`pg_dump -Fc -f <file>` of the same database, run as the engine user over the instance\'s socket, and with "all dbs": ' +
      '`pg_dump -Fc` of every database at once beside `pg_dumpall --globals-only`, the same work as Warden\'s done plainly. Then a clone from the last backup ' +
      '(POST …/clone {name, backupId} → the clone operation completed with the instance running) beside a plain `pg_restore -j 2` ' +
      '(the jobs Warden uses) of the plain dump into a fresh database of the same instance.\n' +
      'Dump phase = POST → the archive step begins (globals, pg_dump of every database, and the tables each dump holds read beside it ' +
      'in the same snapshot, with the planner\'s row estimates); archive phase = tar writing the archive from the dumps, its sha256 read back while it is fsynced, rename, bookkeeping → BackupCompleted. ' +
      'CPU s = CPU seconds of this process (server, pg_dump, tar) and of the instance (postmaster and its backends): other work ' +
      'on the machine moves it less than wall time.\n' +
      `Load average (1/5/15 min) at start: ${loadAtStart} on ${os.cpus().length} CPUs.\n`,
  );

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-backups-'));
  // The instances' own users must pass through the data dir to reach their folders.
  chmodSync(dataDir, 0o711);
  const config = benchConfig(dataDir, { WARDEN_INSTANCE_PORTS: instancePorts })
  const origin = new URL(config.publicUrl).origin;
  const db = openDb(config);
  const bus = new InProcessBus();
  const { published, whenPublished } = recordPublished(bus);

  const app = buildApp(config, { db, bus, logger: false });
  const created: string[] = [];
  const notes: string[] = [];
  const note = (line: string) => {
    notes.push(line);
    console.log(line);
  };
  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const api = await adminApi(db, baseUrl, origin);
    /** Waits for the instance's operation of this kind to complete and answers the instance, which must be running. */
    const operated = async (instanceId: string, kind: string, timeoutMs: number) => {
      const { payload, at } = await whenPublished<OperationCompletedPayload>(
        'OperationCompleted',
        (p) => p.instanceId === instanceId && p.kind === kind,
        timeoutMs,
      );
      if (!payload.ok) throw new Error(`${kind} of ${instanceId} failed: ${payload.error}`);
      const instance = await api<Instance>('GET', `/instances/${instanceId}`);
      if (instance.status !== 'running') throw new Error(`${kind} of ${instance.name} left it ${instance.status}: ${instance.statusReason}`);
      return { instance, at };
    };
    const targetOf = async (instance: Instance): Promise<Target> => ({
      user: instanceUser(app.instances.runtime({ id: instance.id, port: instance.port, peer_port: null })),
      socket: pgSocketDir(app.instances.runtime({ id: instance.id, port: instance.port, peer_port: null })),
      port: instance.port,
      password: (await api<{ password: string }>('POST', `/instances/${instance.id}/connection/secret?role=superuser`, {})).password,
    });

    // ---- A real instance, filled ----

    let phase = performance.now();
    const made = await api<Instance>('POST', '/instances', { name: 'bench-backups', type: 'pg' });
    created.push(made.id);
    const { instance } = await operated(made.id, 'create', 120_000);
    note(`instance ${instance.name} (PostgreSQL ${instance.engineVersion}, port ${instance.port}) created and running in ${seconds(performance.now() - phase)} s`);
    const target = await targetOf(instance);

    phase = performance.now();
    await pgTool(target, 'createdb', [database]);
    await pgTool(target, 'pgbench', ['-i', '-q', '-s', String(scale), database]);
    // Autovacuum's pass over the fresh tables and the fill's dirty pages happen now, not during a timed round
    // (the first took twice the others; an autovacuum worker ending in a round added 25 CPU s to it).
    await psqlValue(target, database, 'vacuum (freeze, analyze)');
    await psqlValue(target, database, 'checkpoint');
    const databaseBytes = Number(await psqlValue(target, database, `select pg_database_size('${database}')`));
    const accounts = Number(await psqlValue(target, database, 'select count(*) from pgbench_accounts'));
    note(
      `pgbench -i -s ${scale}: ${accounts.toLocaleString('en-US')} accounts, pg_database_size('${database}') = ${megabytes(databaseBytes)} ` +
        `(${databaseBytes.toLocaleString('en-US')} bytes), filled in ${seconds(performance.now() - phase)} s`,
    );
    if (!quick && databaseBytes < minimumFullBytes) throw new Error(`the full run needs at least ${megabytes(minimumFullBytes)}; raise the scale`);

    // ---- Backups, taking turns ----

    // The plain dumps go where the engine user may write, as an operator's would.
    const plainDir = path.join(dataDir, 'plain');
    mkdirSync(plainDir, { mode: 0o700 });
    giveToEngineUser(target.user, plainDir);

    /**
     * CPU seconds of this process (the server, and through its reaped children pg_dump, pg_dumpall and tar) and of
     * the instance's postmaster (whose reaped children are the backends): other work on the machine moves it
     * less than wall time. Backends exit just after their client, so a sample waits for them to be reaped.
     */
    const postmaster = app.instances.engine('pg').pid(app.instances.runtime({ id: instance.id, port: instance.port, peer_port: null }));
    if (postmaster === null) throw new Error('the instance has no postmaster');
    const cpuSeconds = async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return cpuSecondsOf('self') + cpuSecondsOf(postmaster);
    };

    const wardenBackup = async (): Promise<WardenRun> => {
      const cpuBefore = await cpuSeconds();
      const postedAt = performance.now();
      const backup = await api<Backup>('POST', `/instances/${instance.id}/backups/database/backup`, {});
      const done = await whenPublished<BackupCompletedPayload>('BackupCompleted', (p) => p.backup.id === backup.id, 30 * 60_000);
      if (done.payload.backup.status !== 'succeeded') throw new Error(`backup ${backup.id} ${done.payload.backup.status}: ${done.payload.backup.error}`);
      const packing = published.find((e) => {
        const progress = e.payload as BackupProgressPayload;
        return e.event === 'BackupProgress' && progress.backupId === backup.id && progress.step === 'writing the archive';
      });
      const packedFrom = packing?.at ?? done.at;
      await app.backups.idle();
      return {
        totalMs: done.at - postedAt,
        dumpMs: packedFrom - postedAt,
        packMs: done.at - packedFrom,
        cpuSeconds: (await cpuSeconds()) - cpuBefore,
        backup: done.payload.backup,
      };
    };
    const plainDump = async (round: number): Promise<PlainRun> => {
      const file = path.join(plainDir, `${database}-${round}.dump`);
      const cpuBefore = await cpuSeconds();
      const { ms } = await pgTool(target, 'pg_dump', ['-Fc', '-f', file, '-d', database]);
      return { ms, cpuSeconds: (await cpuSeconds()) - cpuBefore, file };
    };

    /**
     * The same work as Warden's backup, done plainly: `pg_dump -Fc` of every database the instance lets
     * connect, all at once, beside `pg_dumpall --globals-only`. The ratio to it shows what Warden adds
     * to that work; the ratio to the one plain dump above (the target's) also holds the other
     * databases' dumps, which share the two cores with the large one.
     */
    const databaseNames = (await psqlValue(target, 'postgres', 'select datname from pg_database where datallowconn and not datistemplate order by 1')).split('\n');
    const plainWhole = async (round: number): Promise<Omit<PlainRun, 'file'>> => {
      const cpuBefore = await cpuSeconds();
      const started = performance.now();
      const files = databaseNames.map((_, index) => path.join(plainDir, `whole-${round}-${index + 1}.dump`));
      await Promise.all([
        pgTool(target, 'pg_dumpall', ['--globals-only']),
        ...databaseNames.map((name, index) => pgTool(target, 'pg_dump', ['-Fc', '-f', files[index], '-d', name])),
      ]);
      const ms = performance.now() - started;
      const cpu = (await cpuSeconds()) - cpuBefore;
      for (const file of files) rmSync(file, { force: true });
      return { ms, cpuSeconds: cpu };
    };

    const warden: WardenRun[] = [];
    const plain: PlainRun[] = [];
    const whole: Omit<PlainRun, 'file'>[] = [];
    const rows = [
      ['round', 'first', 'Warden s', '(dump phase', 'archive phase)', 'plain s', 'Warden/plain', 'Warden CPU s', 'plain CPU s', 'CPU ratio', 'all dbs s', 'Warden/all dbs', 'all dbs CPU s'],
    ];
    const row = (label: string, first: string, w: Omit<WardenRun, 'backup'>, p: Omit<PlainRun, 'file'>, all: Omit<PlainRun, 'file'>) => [
      label,
      first,
      seconds(w.totalMs),
      seconds(w.dumpMs),
      seconds(w.packMs),
      seconds(p.ms),
      (w.totalMs / p.ms).toFixed(3),
      w.cpuSeconds.toFixed(2),
      p.cpuSeconds.toFixed(2),
      (w.cpuSeconds / p.cpuSeconds).toFixed(3),
      seconds(all.ms),
      (w.totalMs / all.ms).toFixed(3),
      all.cpuSeconds.toFixed(2),
    ];
    for (let round = 1; round <= rounds; round++) {
      // Which goes first turns with each round, so that cache warmth and drift favour none.
      const runs = [
        { label: 'Warden', run: async () => void warden.push(await wardenBackup()) },
        { label: 'plain', run: async () => void plain.push(await plainDump(round)) },
        { label: 'all dbs', run: async () => void whole.push(await plainWhole(round)) },
      ];
      const turn = (round - 1) % runs.length;
      const order = [...runs.slice(turn), ...runs.slice(0, turn)];
      for (const { run } of order) await run();
      const w = warden[warden.length - 1];
      const p = plain[plain.length - 1];
      const all = whole[whole.length - 1];
      // Only the last plain dump is restored; the others need not take disk space.
      if (round > 1) rmSync(plain[plain.length - 2].file, { force: true });
      rows.push(row(String(round), order[0].label, w, p, all));
      console.log(`round ${round}: Warden ${seconds(w.totalMs)} s, plain ${seconds(p.ms)} s, all dbs ${seconds(all.ms)} s (load ${loadAverage()})`);
    }
    const medianOf = <T>(runs: T[], field: (run: T) => number) => median(runs.map(field));
    const wardenMedian = medianOf(warden, (w) => w.totalMs);
    const plainMedian = medianOf(plain, (p) => p.ms);
    const wholeMedian = medianOf(whole, (p) => p.ms);
    const ratio = wardenMedian / plainMedian;
    rows.push(
      row(
        'median',
        '',
        { totalMs: wardenMedian, dumpMs: medianOf(warden, (w) => w.dumpMs), packMs: medianOf(warden, (w) => w.packMs), cpuSeconds: medianOf(warden, (w) => w.cpuSeconds) },
        { ms: plainMedian, cpuSeconds: medianOf(plain, (p) => p.cpuSeconds) },
        { ms: wholeMedian, cpuSeconds: medianOf(whole, (p) => p.cpuSeconds) },
      ),
    );
    console.log(`\n${table(rows)}`);
    console.log(`\nWarden / plain, medians of wall time: ${ratio.toFixed(3)} (target < ${targetRatio.toFixed(2)}: ${ratio < targetRatio ? 'met' : 'NOT met'})`);
    console.log(
      `Warden / the same work done plainly (${databaseNames.length} databases' pg_dump -Fc at once beside pg_dumpall --globals-only), medians of wall time: ` +
        `${(wardenMedian / wholeMedian).toFixed(3)}; that work / the one plain dump: ${(wholeMedian / plainMedian).toFixed(3)}`,
    );

    const last = warden[warden.length - 1].backup;
    const benchDump = last.contents?.databases?.find((d) => d.name === database);
    const lastPlain = plain[plain.length - 1].file;
    console.log(
      `sizes: Warden's archive ${megabytes(last.sizeBytes ?? 0)} (${(last.sizeBytes ?? 0).toLocaleString('en-US')} bytes; its dump of ${database} ` +
        `${(benchDump?.bytes ?? 0).toLocaleString('en-US')} bytes, of every database ` +
        `${(last.contents?.databases ?? []).reduce((sum, d) => sum + d.bytes, 0).toLocaleString('en-US')} bytes); ` +
        `plain dump ${megabytes(statSync(lastPlain).size)} (${statSync(lastPlain).size.toLocaleString('en-US')} bytes)`,
    );
    console.log(`Warden's row counts of ${database}: ${JSON.stringify(benchDump?.rows ?? {})}`);

    // ---- Restores ----

    phase = performance.now();
    const clone = await api<Instance>('POST', `/instances/${instance.id}/clone`, { name: 'bench-backups-restored', backupId: last.id });
    created.push(clone.id);
    const cloned = await operated(clone.id, 'clone', 30 * 60_000);
    const cloneMs = cloned.at - phase;
    const cloneAccounts = Number(await psqlValue(await targetOf(cloned.instance), database, 'select count(*) from pgbench_accounts'));

    await pgTool(target, 'createdb', ['restored_plain']);
    const { ms: restoreMs } = await pgTool(target, 'pg_restore', ['-j', '2', '--exit-on-error', '-d', 'restored_plain', lastPlain]);
    const plainAccounts = Number(await psqlValue(target, 'restored_plain', 'select count(*) from pgbench_accounts'));
    console.log(
      `\nrestore: clone from the backup ${seconds(cloneMs)} s (POST → running; initdb, start, globals, pg_restore -j 2 of ${
        last.contents?.databases?.length ?? 0
      } database(s); ${cloneAccounts.toLocaleString('en-US')} accounts); plain createdb + pg_restore -j 2 ${seconds(restoreMs)} s ` +
        `(${plainAccounts.toLocaleString('en-US')} accounts)`,
    );
    if (cloneAccounts !== accounts || plainAccounts !== accounts) throw new Error('a restore does not hold every account');
  } finally {
    // Nothing may keep running: instances stop and go with their folders, whatever failed above.
    await app.backups.idle();
    await app.instances.idle();
    for (const id of created.reverse()) await app.instances.delete(id, true).catch((error: unknown) => console.error(`deleting ${id}: ${String(error)}`));
    await app.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    `\n${notes.join('\n')}\nLoad average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAverage()}\n` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
