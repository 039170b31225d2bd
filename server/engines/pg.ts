import fs from 'node:fs';
import path from 'node:path';
import type { Client } from 'pg';
import type { InstanceMember } from '../../contracts/instances';
import type { EngineBinaries } from './detect';
import type { ApplyResult, EngineOptions, InstanceRuntime } from './engine';
import { withClient as withPgClient } from './pgBackup';
import { newPassword, writeSecret } from './pgRoles';
import { archivingCheck } from './pgArchiver';
import { EngineError } from './processRunner';
import { removeInstanceUser } from './instanceUsers';
import {
  clusterMembers,
  clusterPid,
  clusterRolePasswords,
  describeMembers,
  forgetClusterInDcs,
  initializeCluster,
  leaderMember,
  memberAction,
  memberRuntime,
  patroniApi,
  patroniPid,
  probeCluster,
  readCluster,
  reconfigureMembers,
  startCluster,
  stopCluster,
  stoppedClusterMembers,
  type ClusterMember,
  type ClusterTools,
} from './pgCluster';
import { ensureRoles, mkdirFor, paths, pgSuperuserPassword, pgSuperuserTarget, singlePgEngine, type PgEngine } from './pgSingle';

// The pg engine as the rest of Warden uses it: a single server (pgSingle.ts), or a cluster of 2 to 5
// members on Patroni (pgCluster.ts) whose data calls go to the member that leads.

export { pgSocketDir, pgSuperuserPassword, pgSuperuserTarget, type ArchiverState, type PgEngine } from './pgSingle';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL, a single postmaster or a cluster of 2 to 5 members on Patroni (pgCluster.ts). A
 * cluster's data calls (parameters, dumps, roles, clones) go to the member that leads, through the
 * same code as a single server's; its lifecycle, health and configuration go through Patroni.
 */
export function pgEngine(binaries: EngineBinaries, options: EngineOptions = {}): PgEngine {
  /** Why the stanza of an instance could not be made at its last start, by instance id. */
  const stanzaProblems = new Map<string, string>();
  const single = singlePgEngine(binaries, options, stanzaProblems);
  const { archive } = single;
  /** A cluster's archive: every member archives while it leads; a scratch copy keeps none. */
  const clusterArchive = (rt: InstanceRuntime) => (archive && !rt.scratch ? archive : null);
  const tools = (rt: InstanceRuntime): ClusterTools => {
    const archiving = clusterArchive(rt);
    return {
      pgBinDir: binaries.pgBinDir,
      superuserPassword: pgSuperuserPassword(rt),
      ...(archiving && { memberParameters: (m: ClusterMember) => archiving.memberParameters(rt, m), binds: archiving.binds(rt) }),
    };
  };
  /**
   * The stanza, made (or found valid) from the leader's control file; a repository out of reach
   * must not keep the cluster down: its health says why instead.
   */
  async function ensureClusterStanza(rt: InstanceRuntime, leader: ClusterMember) {
    const archiving = clusterArchive(rt);
    if (!archiving) return;
    await archiving
      .ensureStanza(rt, paths(memberRuntime(rt, leader)).data)
      .then(() => stanzaProblems.delete(rt.id))
      .catch((error: unknown) => stanzaProblems.set(rt.id, (error as Error).message));
  }

  async function leaderOf(rt: InstanceRuntime): Promise<InstanceRuntime> {
    const leader = await leaderMember(rt);
    if (!leader) throw new EngineError('No member of the cluster leads at the moment (a failover may be under way): try again shortly.');
    return memberRuntime(rt, leader);
  }
  /** A call of the single engine, made on the leading member when the instance is a cluster. */
  const onLeader =
    <A extends unknown[], R>(call: (rt: InstanceRuntime, ...rest: A) => Promise<R>) =>
    async (rt: InstanceRuntime, ...rest: A): Promise<R> =>
      call(rt.cluster ? await leaderOf(rt) : rt, ...rest);
  /** The leading member of a running cluster, or its first member's folder while it is stopped. */
  const leaderOrFirst = async (rt: InstanceRuntime) =>
    clusterPid(rt) === null ? memberRuntime(rt, clusterMembers(rt)[0]) : await leaderOf(rt).catch(() => memberRuntime(rt, clusterMembers(rt)[0]));
  /**
   * The members as Patroni describes them, with each replica's lag as the leader's
   * pg_stat_replication has it now (Patroni names each replica's connection after the member): in
   * bytes from the leader's WAL position to the replica's replay, and in seconds. Patroni's own figure
   * compares positions posted to the store at different moments of its loop, so right after a WAL
   * switch it can show a whole segment of lag that is not there. PostgreSQL forgets the lag in time of
   * a replica with nothing left to replay: it is 0 s then.
   */
  async function clusterMembersWithLag(rt: InstanceRuntime): Promise<InstanceMember[]> {
    const listed = await describeMembers(rt);
    const leader = listed.find((m) => m.role === 'leader' && m.state === 'running');
    if (!leader) return listed;
    const replication = `select application_name as name, pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text as bytes,
      extract(epoch from replay_lag)::float8 as seconds from pg_stat_replication`;
    const live = await withPgClient(pgSuperuserTarget(memberRuntime(rt, clusterMembers(rt)[leader.ordinal - 1])), 'postgres', (c) => c.query<{ name: string; bytes: string | null; seconds: number | null }>(replication), 2_000)
      .then(({ rows }) => new Map(rows.map((r) => [r.name, r])))
      .catch(() => new Map<string, { bytes: string | null; seconds: number | null }>());
    return listed.map((m) => {
      const seen = live.get(m.name);
      if (m.role === 'leader' || m.state !== 'running' || !seen) return m;
      const lagBytes = seen.bytes === null ? m.lagBytes : Math.max(0, Number(seen.bytes));
      return { ...m, lagBytes, lagSeconds: seen.seconds ?? (lagBytes === 0 ? 0 : null) };
    });
  }

  /** Until the read-write address leads to a primary: HAProxy has seen the leader's Patroni say so. */
  async function untilWritable(rt: InstanceRuntime, withinMs = 30_000) {
    const primary = (c: Client) => c.query<{ standby: boolean }>('select pg_is_in_recovery() as standby').then(({ rows }) => !rows[0].standby);
    for (const deadline = Date.now() + withinMs; ; ) {
      if (await withPgClient(pgSuperuserTarget(rt), 'postgres', primary, 5_000).catch(() => false)) return;
      if (Date.now() > deadline) throw new EngineError(`The read-write address did not lead to the leader within ${withinMs / 1000} seconds: see haproxy.log.`);
      await sleep(200);
    }
  }
  /**
   * A running cluster restarts one member at a time through Patroni, so reads go on throughout and
   * writes pause only while the leader's postgres restarts: the replicas first and the leader last,
   * unless the change lowers what a standby must hold as high as its primary.
   */
  async function rollingRestart(rt: InstanceRuntime) {
    const leader = await leaderMember(rt);
    const members = clusterMembers(rt).filter((m) => patroniPid(m) !== null);
    const replicas = members.filter((m) => m.name !== leader?.name);
    const leading = members.filter((m) => m.name === leader?.name);
    // A standby must hold some values at least as high as its primary: lowered, they reach the
    // replicas only once the leader runs with them (Patroni starts a replica with the leader's when
    // they are higher), so the leader goes first then; raised, the replicas go first.
    const leaderFirst = leader !== null && (await lowersStandbyMinimum(memberRuntime(rt, leader)).catch(() => false));
    for (const m of leaderFirst ? [...leading, ...replicas] : [...replicas, ...leading]) {
      await memberAction(rt, m, 'restart');
      await untilMemberRuns(rt, m.name);
      // The leader wrote its new values to the WAL as it started: each replica replays that record
      // (its control file then holds them) before it restarts, or Patroni would keep the old ones.
      if (leaderFirst && m === leading[0]) await untilReplayed(rt, m, replicas);
    }
    // Members whose Patroni was not running start now, as a start would.
    await startCluster(rt, tools(rt));
    await untilWritable(rt);
  }

  /** Whether a change waiting for a restart lowers a value a standby must hold at least as high as its primary. */
  async function lowersStandbyMinimum(leader: InstanceRuntime): Promise<boolean> {
    // The value that applies at the next start is the last one the files give (the highest seqno).
    const lowered = `
      select count(*)::int as n from pg_settings s
        join lateral (select f.setting from pg_file_settings f where f.name = s.name order by f.seqno desc limit 1) f on true
       where s.name in ('max_connections', 'max_prepared_transactions', 'max_locks_per_transaction', 'max_wal_senders', 'max_worker_processes')
         and s.pending_restart and f.setting ~ '^[0-9]+$' and f.setting::bigint < s.setting::bigint`;
    return withPgClient(pgSuperuserTarget(leader), 'postgres', async (c) => (await c.query<{ n: number }>(lowered)).rows[0].n > 0, 5_000);
  }

  /**
   * A data folder Patroni is to take over (a restore's): started once on its own, it gets this
   * instance's superuser and owner passwords, and the roles Patroni replicates and rewinds as, with
   * the cluster's passwords, as Patroni's own bootstrap would have made them.
   */
  async function prepareForPatroni(rt: InstanceRuntime, first: InstanceRuntime) {
    await single.start(first);
    try {
      const { replicator, rewinder } = clusterRolePasswords(rt);
      await withPgClient(pgSuperuserTarget(first), 'postgres', async (c) => {
        for (const [role, password, rights] of [
          ['replicator', replicator, 'login replication'],
          ['rewinder', rewinder, 'login'],
        ] as const) {
          const exists = (await c.query('select 1 from pg_roles where rolname = $1', [role])).rowCount === 1;
          const { rows } = await c.query<{ sql: string }>(`select format('${exists ? 'alter' : 'create'} role %I with ${rights} password %L', $1::text, $2::text) as sql`, [role, password]);
          await c.query(rows[0].sql);
        }
        // What pg_rewind reads of a leader, as Patroni's documentation grants it.
        for (const fn of ['pg_ls_dir(text, boolean, boolean)', 'pg_stat_file(text, boolean)', 'pg_read_binary_file(text)', 'pg_read_binary_file(text, bigint, bigint, boolean)']) {
          await c.query(`grant execute on function pg_catalog.${fn} to rewinder`);
        }
      }, 10_000);
    } finally {
      await single.stop(first);
    }
  }

  /** Until each of `replicas` has replayed the leader's WAL up to where it is now (30 s at most each). */
  async function untilReplayed(rt: InstanceRuntime, leader: ClusterMember, replicas: ClusterMember[]) {
    const query = (m: ClusterMember, sql: string, values: string[] = []) =>
      withPgClient(pgSuperuserTarget(memberRuntime(rt, m)), 'postgres', async (c) => (await c.query<{ v: string | boolean | null }>(sql, values)).rows[0].v, 5_000);
    const lsn = String(await query(leader, 'select pg_current_wal_lsn()::text as v'));
    for (const m of replicas) {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
        if ((await query(m, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as v', [lsn]).catch(() => false)) === true) break;
      }
    }
  }

  /** Until Patroni lists the member as running again (a restart answers before postgres is up). */
  async function untilMemberRuns(rt: InstanceRuntime, name: string, withinMs = 120_000) {
    for (const deadline = Date.now() + withinMs; ; ) {
      const listed = (await readCluster(rt)) ?? [];
      if (listed.some((p) => p.name === name && (p.state === 'running' || p.state === 'streaming'))) return;
      if (Date.now() > deadline) throw new EngineError(`Member ${name} did not run again within ${withinMs / 1000} seconds.`);
      await sleep(250);
    }
  }

  /** The new values through Patroni's dynamic configuration, so every member gets them. */
  async function applyToCluster(rt: InstanceRuntime, changes: Record<string, string>): Promise<ApplyResult> {
    const leader = await leaderMember(rt);
    if (!leader) throw new EngineError('Start the cluster (and wait for a leader) to change its configuration.');
    const known = new Map((await single.parameters(memberRuntime(rt, leader))).map((p) => [p.name, p]));
    const result: ApplyResult = { reload: [], restart: [] };
    for (const name of Object.keys(changes)) result[known.get(name)?.apply ?? 'restart'].push(name);
    const answer = await patroniApi<string>(rt, leader, 'PATCH', '/config', { postgresql: { parameters: changes } });
    if (answer.status !== 200) throw new EngineError(`Patroni refused the configuration: ${typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)}`);
    return result;
  }

  const engine: PgEngine = {
    ...single,

    async restoreToPoint(source, target, plan) {
      if (!target.cluster) return single.restoreToPoint(source, target, plan);
      // The first member's folder gets the restored data, which its Patroni then takes over.
      const first = memberRuntime(target, clusterMembers(target)[0]);
      const outcome = await single.restoreToPoint(source, first, plan);
      await engine.initialize(target, {});
      await prepareForPatroni(target, first);
      return outcome;
    },

    archiverState: onLeader(single.archiverState),
    countDatabases: onLeader(single.countDatabases),
    createRestorePoint: onLeader(single.createRestorePoint),

    async applyArchiveSettings(rt) {
      if (!rt.cluster) return single.applyArchiveSettings(rt);
      clusterArchive(rt)?.prepare(rt, '');
      await reconfigureMembers(rt, tools(rt));
    },

    async initialize(rt, parameters = {}) {
      if (!rt.cluster) return single.initialize(rt, parameters);
      fs.mkdirSync(path.dirname(rt.dir), { recursive: true, mode: 0o711 });
      for (const dir of [rt.dir, paths(rt).logs]) mkdirFor(rt, dir, 0o700);
      if (!fs.existsSync(paths(rt).secret)) writeSecret(paths(rt).secret, newPassword());
      await initializeCluster(rt, tools(rt), parameters);
    },

    async start(rt) {
      if (!rt.cluster) return single.start(rt);
      clusterArchive(rt)?.prepare(rt, '');
      const leader = await startCluster(rt, tools(rt));
      await ensureClusterStanza(rt, leader);
      // The owner role and passwords as DESIGN §11 wants them, written on the leader, replicated to the others.
      await ensureRoles(memberRuntime(rt, leader));
      await untilWritable(rt);
    },

    stop: (rt) => (rt.cluster ? stopCluster(rt) : single.stop(rt)),

    async restart(rt) {
      if (rt.cluster && clusterPid(rt) !== null) return rollingRestart(rt);
      await engine.stop(rt);
      await engine.start(rt);
    },

    async reload(rt) {
      if (!rt.cluster) return single.reload(rt);
      for (const m of clusterMembers(rt)) if (patroniPid(m) !== null) await patroniApi(rt, m, 'POST', '/reload');
      return { errors: [], pendingRestart: await engine.pendingRestart(rt) };
    },

    pid: (rt) => (rt.cluster ? clusterPid(rt) : single.pid(rt)),

    async probe(rt) {
      if (!rt.cluster) return single.probe(rt);
      const health = await probeCluster(rt);
      if (!health.running || !clusterArchive(rt)) return health;
      const archiving = archivingCheck(await engine.archiverState(rt));
      const checks = [...health.checks, archiving];
      // As for a single server, a failing archive is an error of the health, not an outage.
      return { ...health, checks, level: checks.some((c) => c.level === 'error') ? 'error' : checks.some((c) => c.level === 'warn') ? 'warn' : 'good' };
    },

    parameters: async (rt) => single.parameters(rt.cluster ? await leaderOrFirst(rt) : rt),

    async pendingRestart(rt) {
      if (!rt.cluster) return single.pendingRestart(rt);
      const leader = await leaderMember(rt);
      return leader ? single.pendingRestart(memberRuntime(rt, leader)) : [];
    },

    validate: async (rt, changes) => single.validate(rt.cluster ? await leaderOrFirst(rt) : rt, changes),

    apply: (rt, changes) => (rt.cluster ? applyToCluster(rt, changes) : single.apply(rt, changes)),

    // A cluster's managed parameters are Patroni's configuration, written by Warden at every start.
    resetManaged: (rt) => (rt.cluster ? [] : single.resetManaged(rt)),

    async clone(source, target) {
      const from = source.cluster ? await leaderOrFirst(source) : source;
      if (!target.cluster) return single.clone(from, target);
      // As a restore into a cluster: the first member's folder gets the copy, which its Patroni takes over.
      const first = memberRuntime(target, clusterMembers(target)[0]);
      await single.clone(from, first);
      await engine.initialize(target, {});
      await prepareForPatroni(target, first);
    },

    members: (rt) => (rt.cluster ? clusterMembersWithLag(rt) : single.members(rt)),
    stoppedMembers: (rt) => (rt.cluster ? stoppedClusterMembers(rt) : single.stoppedMembers(rt)),

    async remove(rt) {
      if (!rt.cluster) return single.remove(rt);
      if (clusterPid(rt) !== null) throw new EngineError('The instance is running: stop it before removing it.');
      await forgetClusterInDcs(rt);
      await clusterArchive(rt)?.remove(rt);
      fs.rmSync(rt.dir, { recursive: true, force: true });
      await removeInstanceUser(rt.id);
    },

    async backupDatabase(rt, dir, progress) {
      if (!rt.cluster) return single.backupDatabase(rt, dir, progress);
      // A dump reads a replica that streams and is caught up, sparing the leader; should the replica
      // fail it (a recovery conflict cancels a long read there), the leader is read instead.
      const replica = (await engine.members(rt)).find((m) => m.role !== 'leader' && m.state === 'running' && m.lagBytes !== null && m.lagBytes <= 16 * 1024 * 1024);
      const readFrom = async (member: InstanceRuntime, what: string) => ({
        ...(await single.backupDatabase(member, dir, (p) => progress({ ...p, step: `${p.step} (from ${what})` }))),
        readFrom: what,
      });
      let why = '';
      if (replica) {
        try {
          return await readFrom(memberRuntime(rt, clusterMembers(rt)[replica.ordinal - 1]), `member ${replica.ordinal}, a replica`);
        } catch (error) {
          why = `; member ${replica.ordinal} failed it: ${(error as Error).message.split('\n')[0]}`;
          for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
        }
      }
      const leader = await leaderOf(rt);
      return readFrom(leader, `member ${leader.member}, the leader${why}`);
    },
    inspect: onLeader(single.inspect),
    // Reads only the unpacked backup: any member's user may.
    dumpedContents: single.dumpedContents,

    fileBackupPaths(rt, withData) {
      if (!rt.cluster) return single.fileBackupPaths(rt, withData);
      const wanted = withData ? ['members', 'logs', 'parameters.json'] : ['logs', 'parameters.json', 'haproxy.cfg'];
      return wanted.filter((relative) => fs.existsSync(path.join(rt.dir, relative)));
    },
  };
  return engine;
}
