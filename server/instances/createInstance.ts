import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Instance, OperationKind } from '../../contracts/instances';
import { instanceNameProblem, type InstanceType } from '../../contracts/instanceValues';
import { findGroup, groupUsage } from '../db/groups';
import type { Db } from '../db/schema';
import { clusterSpecOf, DuplicateInstanceNameError, findInstance, findInstanceRow, insertInstance, instanceNameTaken, instanceNameUnavailable, type InstanceRow } from '../db/instances';
import type { Engine, InstanceRuntime } from '../engines/engine';
import type { PgEngine } from '../engines/pg';
import { haproxyBin, patroniBin, type ClusterSpec } from '../engines/pgCluster';
import { EngineError } from '../engines/processRunner';
import type { ClusterPresetName } from '../../contracts/clusters';
import type { RecoveryTarget } from '../../contracts/pitr';
import { policyErrors } from '../engines/parameterPolicy';
import { HttpProblem, validationProblem } from '../http/problems';
import { keepGroupLimits } from './groupLimits';
import type { Host } from '../../contracts/hosts';
import { enqueue } from '../hosts/hostQueue';
import { forwardingHeaders } from '../hosts/forwarding';
import { findHostRow, hostViews, placeOn } from '../hosts/hostStore';
import type { InstanceContext } from './instanceContext';
import { probeInto } from './instanceHealth';
import { launch, startEngine } from './lifecycle';
import { engineCanReach } from './reach';
import { recordRevision, revisionParameters } from './revisions';

export interface CreateInput {
  name: string;
  type: InstanceType;
  groupId: string | null;
  description: string;
  parameters: Record<string, string>;
  /** 1, 3 or 5 for an etcd cluster, 2 to 5 for a PostgreSQL cluster (copies are single members). */
  members?: number;
  /** A PostgreSQL cluster's consensus store (an etcd instance of the same group), commit mode and timing. */
  dcsInstanceId?: string;
  synchronous?: boolean;
  failoverPreset?: ClusterPresetName;
  /** The host to make it on (admins); absent, the one with the most free capacity. */
  hostId?: string;
}

/** Why a member count cannot be had for this engine, or null. */
export function membersProblem(type: InstanceType, members: number): string | null {
  if (type === 'etcd') return [1, 3, 5].includes(members) ? null : 'An etcd instance has 1, 3 or 5 members: an odd count keeps a quorum when one (or two) are lost.';
  return members >= 1 && members <= 5 ? null : 'A PostgreSQL instance has 1 member, or 2 to 5 as a cluster on Patroni.';
}

type ClusterBase = Omit<ClusterSpec, 'readWritePort' | 'readOnlyPort'>;

/**
 * What a PostgreSQL cluster is built on (Patroni, HAProxy, an etcd of its group), checked before
 * anything is made; undefined when the input is no cluster. No store chosen answers an empty
 * dcsInstanceId: one is to be made.
 */
async function checkCluster(ctx: InstanceContext, input: CreateInput): Promise<ClusterBase | undefined> {
  const clustered = input.type === 'pg' && (input.members ?? 1) > 1;
  if (!clustered) {
    const stray = (['dcsInstanceId', 'synchronous', 'failoverPreset'] as const).filter((field) => input[field] !== undefined);
    if (stray.length > 0) throw validationProblem(Object.fromEntries(stray.map((field) => [field, ['Only a PostgreSQL cluster (2 to 5 members) takes this.']])));
    return undefined;
  }
  const missing = [patroniBin, haproxyBin].filter((bin) => !fs.existsSync(bin));
  if (missing.length > 0) {
    throw new HttpProblem(503, 'PostgreSQL clusters need Patroni and HAProxy: install the Debian packages patroni and haproxy.', { title: 'Engine not installed' });
  }
  const base = { synchronous: input.synchronous ?? false, preset: input.failoverPreset ?? 'fast' } as const;
  if (!input.dcsInstanceId) {
    // None chosen: Warden makes the cluster a 3-member etcd of its own, in its group, named after it.
    const problem = await nameProblem(ctx, storeNameOf(input.name));
    if (problem) throw validationProblem({ dcsInstanceId: [`Warden would make an etcd instance named ${storeNameOf(input.name)} for the cluster's leader lock: ${problem} Choose an etcd instance of the group instead.`] });
    if (input.groupId) await checkInstanceQuota(ctx.deps.db, input.groupId, 2);
    return { ...base, dcsInstanceId: '', dcsEndpoints: [] };
  }
  const dcs = await findInstanceRow(ctx.deps.db, input.dcsInstanceId);
  // Another group's instance is answered as missing, as everywhere else.
  if (!dcs || dcs.group_id !== input.groupId) throw validationProblem({ dcsInstanceId: ['No etcd instance of this group has this id.'] });
  if (dcs.type !== 'etcd') throw validationProblem({ dcsInstanceId: ['The consensus store must be an etcd instance.'] });
  if (dcs.status !== 'running') throw validationProblem({ dcsInstanceId: [`The etcd instance ${dcs.name} is not running: start it first.`] });
  return { ...base, dcsInstanceId: dcs.id, dcsEndpoints: endpointsOf(ctx.runtime(dcs)) };
}

/** The consensus store Warden makes for a cluster created without one. */
const storeNameOf = (name: string) => `${name}-dcs`;

/** An etcd instance's client URLs, every member's. */
const endpointsOf = (rt: InstanceRuntime) => [rt.port, ...(rt.members ?? []).map((m) => m.port)].map((port) => `http://127.0.0.1:${port}`);

/**
 * A 3-member etcd made for a new cluster, created like any instance (its own create operation, its
 * quota place, its audit through the cluster's); answers the cluster's spec naming it.
 */
async function makeStore(ctx: InstanceContext, input: CreateInput, spec: ClusterBase, author: string | null, isAdmin: boolean): Promise<ClusterBase> {
  const store = await createInstance(
    ctx,
    { name: storeNameOf(input.name), type: 'etcd', groupId: input.groupId, members: 3, parameters: {}, description: `The consensus store of the PostgreSQL cluster ${input.name}, made with it.` },
    author,
    isAdmin,
  );
  const row = (await findInstanceRow(ctx.deps.db, store.id))!;
  return { ...spec, dcsInstanceId: store.id, dcsEndpoints: endpointsOf(ctx.runtime(row)) };
}

/** Until the consensus store made with a cluster has finished its first start; throws why it did not run. */
async function untilStoreRuns(ctx: InstanceContext, storeId: string) {
  await ctx.busy.get(storeId)?.catch(() => undefined);
  const store = await findInstanceRow(ctx.deps.db, storeId);
  if (store?.status !== 'running') throw new EngineError(`The consensus store made for the cluster (${store?.name ?? storeId}) is ${store?.status ?? 'gone'}: ${store?.status_reason ?? 'see its log'}.`);
}

// Making instances: new ones, clones of a running instance's data, and clones from a backup.

export async function nameProblem(ctx: InstanceContext, name: string): Promise<string | null> {
  const local = instanceNameProblem(name);
  if (local) return local;
  return (await instanceNameTaken(ctx.deps.db, name)) ? instanceNameUnavailable : null;
}

export async function createInstance(ctx: InstanceContext, input: CreateInput, author: string | null, isAdmin = false): Promise<Instance> {
  const problem = await nameProblem(ctx, input.name);
  if (problem) throw validationProblem({ name: [problem] });
  const memberProblem = membersProblem(input.type, input.members ?? 1);
  if (memberProblem) throw validationProblem({ members: [memberProblem] });
  const engine = ctx.engine(input.type);
  // A cluster's members, proxy and consensus store run on one host: the one of the process asked.
  const clustered = (input.members ?? 1) > 1;
  if (clustered && (!ctx.runsInstances || (input.hostId !== undefined && input.hostId !== ctx.hostId))) {
    throw new HttpProblem(409, "A cluster runs on one host, and is made through that host's own Warden (WARDEN_ROLE=all): a server places single instances only.");
  }
  const placed = clustered ? null : await placeInstance(ctx, input.hostId, input.type === 'etcd' ? 2 : 1);
  if (!placed) await ensureUsable(ctx, engine);
  const cluster = await checkCluster(ctx, input);
  if (Object.keys(input.parameters).length > 0) {
    const refused = policyErrors(input.type, input.parameters, isAdmin);
    const errors = Object.keys(refused).length > 0 ? refused : await checkInitialParameters(ctx, engine, input.parameters);
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
  }
  const id = randomUUID();
  if (placed) {
    // Another host's agent makes it: the row (with ports of that host's range) now, the rest queued.
    const instance = await insert(ctx, id, input, author, 'create', undefined, placed);
    await enqueue(ctx.deps.db, { hostId: placed.id, instanceId: id, kind: 'create', input: { parameters: input.parameters, author } }, ctx.deps.clock());
    return instance;
  }
  const makesStore = cluster !== undefined && cluster.dcsInstanceId === '';
  const spec = cluster && makesStore ? await makeStore(ctx, input, cluster, author, isAdmin) : cluster;
  const instance = await insert(ctx, id, input, author, 'create', spec);
  launchCreation(ctx, id, engine, input.parameters, author, makesStore ? () => untilStoreRuns(ctx, spec!.dcsInstanceId) : undefined);
  return instance;
}

/** Makes a new instance's data and starts it, as its create operation: here, or on its host for an agent. */
export function launchCreation(ctx: InstanceContext, id: string, engine: Engine, parameters: Record<string, string>, author: string | null, first?: () => Promise<void>) {
  launch(ctx, id, 'create', async (row, rt) => {
    if (first) await first();
    await prepareFolder(ctx, id, rt);
    await engine.initialize(rt, parameters);
    await ctx.change(id, { status: 'stopped', status_reason: null, engine_version: await engine.version() });
    if (Object.keys(parameters).length > 0) {
      await recordRevision(ctx.deps.db, id, author, ctx.deps.clock(), parameters, {});
    }
    await startEngine(ctx, row, rt, engine);
    return null;
  });
}

/**
 * The other host a new instance goes to, or null when this process makes it itself: the host asked
 * for (admins), else the one with the most free capacity. A process that runs instances and has no
 * host registered (a single server) keeps every instance.
 */
async function placeInstance(ctx: InstanceContext, hostId: string | undefined, portsNeeded: number): Promise<Host | null> {
  if (!hostId && ctx.runsInstances && ctx.hostId === null) return null;
  const hosts = await hostViews(ctx.deps.db);
  let host: Host | undefined;
  if (hostId) {
    host = hosts.find((h) => h.id === hostId);
    if (!host) throw validationProblem({ hostId: ['No host has this id.'] });
    if (host.state === 'lost') throw validationProblem({ hostId: [`Host ${host.name} is lost (no heartbeat since ${host.lastHeartbeatAt}).`] });
    if (host.draining) throw validationProblem({ hostId: [`Host ${host.name} is draining: it takes no new instance.`] });
  } else {
    host = placeOn(hosts, portsNeeded);
    if (!host) {
      throw new HttpProblem(503, 'No host can take a new instance: every host is lost, draining or out of ports. Start an agent, or stop draining a host.', { title: 'No host available' });
    }
  }
  return host.id === ctx.hostId && ctx.runsInstances ? null : host;
}

/** A new instance holding a backup's data (DESIGN §10 clone with backupId); the source is not touched. */
export async function cloneFromBackup(
  ctx: InstanceContext,
  sourceId: string,
  input: { name: string; backupId: string; description?: string; hostId?: string },
  author: string | null,
): Promise<Instance> {
  const source = await ctx.requireRow(sourceId);
  if (!ctx.backups) throw new HttpProblem(503, 'Backups are not available on this server.');
  await ctx.backups.checkCloneSource(sourceId, input.backupId);
  const placed = input.hostId ? await placeInstance(ctx, input.hostId, source.type === 'etcd' ? 2 : 1) : null;
  const engine = placed ? ctx.engine(source.type) : await checkCopy(ctx, source, input.name);
  if (placed) {
    const problem = await nameProblem(ctx, input.name);
    if (problem) throw validationProblem({ name: [problem] });
  }
  const id = randomUUID();
  const description = input.description ?? `Restored from a backup of ${source.name}`;
  const instance = await insertCopy(ctx, id, source, input.name, description, author, placed ?? undefined);
  if (placed) {
    // Made by the other host's agent, which first brings the backup over from this host.
    await enqueue(ctx.deps.db, { hostId: placed.id, instanceId: id, kind: 'clone', input: { backupId: input.backupId, sourceId, author } }, ctx.deps.clock());
    return instance;
  }
  launchRestore(ctx, id, engine, source, input.backupId, author);
  return instance;
}

/**
 * Restores a backup into the new instance `id`, as its clone operation; a backup kept on another host
 * is brought over first and its copy removed after.
 */
export function launchRestore(ctx: InstanceContext, id: string, engine: Engine, source: InstanceRow, backupId: string, author: string | null) {
  const backups = ctx.backups!;
  launch(ctx, id, 'clone', async (row, rt) => {
    const removeCopy = ctx.isLocal(source) ? null : await fetchBackupOfHost(ctx, source, backupId);
    try {
      const saved = await revisionParameters(ctx.deps.db, source.id);
      await prepareFolder(ctx, id, rt);
      ctx.deps.logs.tail(id, engine.logDir(rt), row.type);
      const skipped = await backups.restoreInto(backupId, rt, saved, { instanceId: id });
      if (Object.keys(saved).length > 0) await recordRevision(ctx.deps.db, id, author, ctx.deps.clock(), saved, {});
      await ctx.change(id, { status: 'stopped', status_reason: null, engine_version: await engine.version() });
      await probeInto(ctx, row, rt, engine);
      const leftOut = skipped.length > 0 ? ` without ${skipped.length} item(s) that need more than the tenant's rights (listed in the log)` : '';
      return `restored from backup ${backupId} of ${source.name}${leftOut}`;
    } finally {
      await removeCopy?.();
    }
  });
}

/** A backup of `source`, kept on its host, brought into this host's storage from that host's agent. */
async function fetchBackupOfHost(ctx: InstanceContext, source: InstanceRow, backupId: string): Promise<() => Promise<void>> {
  const host = source.host_id ? await findHostRow(ctx.deps.db, source.host_id) : undefined;
  if (!host?.api_url || host.lost_at) throw new EngineError(`The host that keeps the backup (${host?.name ?? 'none'}) is not online: try again once its agent is back.`);
  return ctx.backups!.fetchFromHost(backupId, host.api_url, await forwardingHeaders(ctx.deps.db));
}

/** What a restore to a point needs besides the new instance's name: the plan checked beforehand. */
export interface PointRestoreInput extends CopyShape {
  name: string;
  description?: string;
  groupId?: string | null;
  backupId: string;
  target: RecoveryTarget;
}

/**
 * A new instance holding the source as it was at the plan's target (DESIGN §12): pgBackRest restores
 * the chosen backup set and PostgreSQL replays the WAL up to the target and promotes; the source is
 * not touched. `recorded` hears the outcome, to be kept with the new instance.
 */
export async function restoreToPoint(
  ctx: InstanceContext,
  sourceId: string,
  input: PointRestoreInput,
  author: string | null,
  recorded: (outcome: { instanceId: string; lastReplayedAt: string | null; timeline: number; stoppedAtTarget: boolean; recoveryMs: number }) => Promise<void>,
): Promise<Instance> {
  const source = await ctx.requireRow(sourceId);
  const engine = (await checkCopy(ctx, source, input.name)) as PgEngine;
  if (input.groupId !== undefined && input.groupId !== source.group_id && input.groupId !== null) await checkInstanceQuota(ctx.deps.db, input.groupId);
  const groupId = input.groupId === undefined ? source.group_id : input.groupId;
  // A restore may make a cluster, checked as a creation is: members, its consensus store, Patroni and HAProxy.
  const { spec, madeStore } = await copyCluster(ctx, source, input.name, groupId, input, author);
  // The restore and its recovery run as the source's user: no start of the source (supervision
  // restarting a crashed one, above all) may end that user's processes meanwhile.
  ctx.claim(sourceId);
  const release = () => ctx.busy.delete(sourceId);
  const id = randomUUID();
  const description = input.description ?? `Restored from ${source.name} to ${describeTarget(input.target)}`;
  let instance: Instance;
  try {
    instance = await insert(ctx, id, { name: input.name, type: source.type, groupId, description, parameters: {}, members: input.members }, author, 'clone', spec);
  } catch (error) {
    release();
    throw error;
  }
  launch(ctx, id, 'clone', async (row, rt) => {
    const saved = await revisionParameters(ctx.deps.db, sourceId);
    const began = Date.now();
    let outcome: Awaited<ReturnType<PgEngine['restoreToPoint']>>;
    try {
      if (madeStore) await untilStoreRuns(ctx, spec!.dcsInstanceId);
      await prepareFolder(ctx, id, rt);
      outcome = await engine.restoreToPoint(ctx.runtime(source), rt, { backupId: input.backupId, target: input.target });
    } finally {
      release();
    }
    const recoveryMs = Date.now() - began;
    if (Object.keys(saved).length > 0) await recordRevision(ctx.deps.db, id, author, ctx.deps.clock(), saved, {});
    await ctx.change(id, { status: 'stopped', status_reason: null, engine_version: source.engine_version });
    await recorded({ instanceId: id, ...outcome, recoveryMs });
    await startEngine(ctx, row, rt, engine);
    const reached = outcome.stoppedAtTarget ? '' : ' (the archive ends before the next commit after the target, so every transaction up to it was replayed)';
    return `restored from ${source.name} to ${describeTarget(input.target)} from backup ${input.backupId}, last transaction replayed ${outcome.lastReplayedAt ?? 'none'}, timeline ${outcome.timeline}, recovery ${(recoveryMs / 1000).toFixed(1)} s${reached}`;
  });
  return instance;
}

function describeTarget(target: RecoveryTarget): string {
  if (target === 'latest') return 'the latest restorable moment';
  if ('time' in target) return target.time;
  if ('lsn' in target) return `WAL position ${target.lsn}`;
  return `restore point '${target.name}'`;
}

/** The shape a copy may take: a PostgreSQL copy may be a cluster, as a creation makes one. */
export type CopyShape = Pick<CreateInput, 'members' | 'dcsInstanceId' | 'synchronous' | 'failoverPreset'>;

/**
 * A copy's cluster, checked as a creation's is (its store made when none is chosen); undefined for a
 * single member. `cluster` is what was checked, `spec` what the copy is inserted with.
 */
async function copyCluster(ctx: InstanceContext, source: InstanceRow, name: string, groupId: string | null, shape: CopyShape, author: string | null) {
  const members = shape.members ?? 1;
  if (members > 1 && source.type !== 'pg') throw validationProblem({ members: ['A copy of an etcd instance is a single member: grow it afterwards.'] });
  const memberProblem = membersProblem('pg', members);
  if (memberProblem) throw validationProblem({ members: [memberProblem] });
  // A copy of a cluster, in the same group, keeps its leader lock in the source's store while that runs.
  const sourceStore = clusterSpecOf(source)?.dcsInstanceId;
  const storeRuns = sourceStore !== undefined && groupId === source.group_id && (await findInstanceRow(ctx.deps.db, sourceStore))?.status === 'running';
  const dcsInstanceId = shape.dcsInstanceId ?? (members > 1 && storeRuns ? sourceStore : undefined);
  const wanted: CreateInput = { name, type: source.type, groupId, description: '', parameters: {}, ...shape, dcsInstanceId };
  const cluster = await checkCluster(ctx, wanted);
  const spec = cluster && cluster.dcsInstanceId === '' ? await makeStore(ctx, wanted, cluster, author, false) : cluster;
  return { spec, madeStore: spec !== cluster };
}

export async function cloneInstance(ctx: InstanceContext, sourceId: string, input: { name: string; description?: string } & CopyShape, author: string | null): Promise<Instance> {
  const source = await ctx.requireRow(sourceId);
  if (source.status === 'unInitialized') throw new HttpProblem(409, 'The instance has no data yet: nothing to clone.');
  const engine = await checkCopy(ctx, source, input.name);
  const { spec, madeStore } = await copyCluster(ctx, source, input.name, source.group_id, input, author);
  ctx.claim(sourceId);
  const id = randomUUID();
  let instance: Instance;
  try {
    instance = await insert(
      ctx,
      id,
      { name: input.name, type: source.type, groupId: source.group_id, description: input.description ?? `Clone of ${source.name}`, parameters: {}, members: input.members },
      author,
      'clone',
      spec,
    );
  } catch (error) {
    ctx.busy.delete(sourceId);
    throw error;
  }
  await ctx.change(sourceId, { operation_kind: 'clone', operation_started_at: ctx.deps.clock().toISOString() });
  await ctx.publishInstance('InstanceUpdated', sourceId);
  const copied = (async () => {
    try {
      if (madeStore) await untilStoreRuns(ctx, spec!.dcsInstanceId);
      const target = ctx.runtime(await ctx.requireRow(id));
      await prepareFolder(ctx, id, target);
      await engine.clone(ctx.runtime(source), target);
    } finally {
      await ctx.change(sourceId, { operation_kind: null, operation_started_at: null });
      ctx.busy.delete(sourceId);
      await ctx.publishInstance('InstanceUpdated', sourceId);
    }
  })();
  launch(ctx, id, 'clone', async (row, rt) => {
    await copied;
    const saved = await revisionParameters(ctx.deps.db, sourceId);
    if (Object.keys(saved).length > 0) await recordRevision(ctx.deps.db, id, author, ctx.deps.clock(), saved, {});
    await ctx.change(id, { status: 'stopped', status_reason: null, engine_version: source.engine_version });
    await startEngine(ctx, row, rt, engine);
    return `cloned from ${source.name}`;
  });
  return instance;
}

/**
 * Makes a new instance's folder and keeps its group's limits beside it before the engine fills it,
 * so every process run for it (initdb, a copy, a restore, its first start) has them. The engine
 * takes the folder over as it would one it made.
 */
async function prepareFolder(ctx: InstanceContext, id: string, rt: InstanceRuntime) {
  fs.mkdirSync(ctx.instancesDir, { recursive: true, mode: 0o711 });
  fs.mkdirSync(rt.dir, { recursive: true, mode: 0o700 });
  await keepGroupLimits(ctx, id);
}

/** Whether a copy of `source` named `name` can be made here; answers the engine to make it with. */
async function checkCopy(ctx: InstanceContext, source: InstanceRow, name: string): Promise<Engine> {
  const problem = await nameProblem(ctx, name);
  if (problem) throw validationProblem({ name: [problem] });
  const engine = ctx.engine(source.type);
  await ensureUsable(ctx, engine);
  return engine;
}

/** The record of a copy: the source's type and group, its own name, ports and description. */
function insertCopy(ctx: InstanceContext, id: string, source: InstanceRow, name: string, description: string, author: string | null, placed?: Host): Promise<Instance> {
  return insert(ctx, id, { name, type: source.type, groupId: source.group_id, description, parameters: {} }, author, 'clone', undefined, placed);
}

async function insert(
  ctx: InstanceContext,
  id: string,
  input: CreateInput,
  author: string | null,
  kind: OperationKind,
  cluster?: ClusterBase,
  placed?: Host,
): Promise<Instance> {
  const now = ctx.deps.clock().toISOString();
  const members = input.members ?? 1;
  // etcd takes a client and a peer port per member, a PostgreSQL cluster a postgres and a Patroni REST
  // port per member and its two addresses; the first member's are the instance's own.
  const wanted = cluster ? 2 * members + 2 : input.type === 'etcd' ? 2 * members : 1;
  const ports = placed ? ctx.portsOf(placed) : ctx.ports;
  await ports.withPorts(wanted, async ([port, peerPort, ...more]) => {
    const memberPorts = Array.from({ length: members - 1 }, (_, i) => ({ port: more[2 * i], peerPort: more[2 * i + 1] }));
    const addresses = more.slice(2 * (members - 1));
    const spec: ClusterSpec | null = cluster ? { ...cluster, readWritePort: addresses[0], readOnlyPort: addresses[1] } : null;
    // Checked where inserts run one at a time, so two creations cannot both take the last place.
    if (input.groupId) await checkInstanceQuota(ctx.deps.db, input.groupId);
    try {
      await insertInstance(ctx.deps.db, {
        id,
        name: input.name,
        type: input.type,
        status: 'unInitialized',
        desired_state: 'running',
        status_reason: null,
        health_level: 'good',
        health_checks: '[]',
        group_id: input.groupId,
        engine_version: null,
        port,
        peer_port: peerPort ?? null,
        member_ports: memberPorts.length > 0 ? JSON.stringify(memberPorts) : null,
        cluster: spec ? JSON.stringify(spec) : null,
        description: input.description,
        created_at: now,
        created_by: author,
        last_backup_at: null,
        operation_kind: kind,
        operation_started_at: now,
        host_id: placed?.id ?? ctx.hostId,
      });
    } catch (error) {
      if (error instanceof DuplicateInstanceNameError) throw validationProblem({ name: [error.message] });
      throw error;
    }
  });
  const instance = (await findInstance(ctx.deps.db, id))!;
  await ctx.publishInstance('InstanceCreated', id, instance);
  return instance;
}

/** 409 when the group already holds as many instances as its quota allows: checked before one is created in it or moved into it. */
export async function checkInstanceQuota(db: Db, groupId: string, needed = 1) {
  const group = await findGroup(db, groupId);
  const max = group?.quota.maxInstances ?? null;
  if (!group || max === null) return;
  if ((await groupUsage(db, groupId)).instances + needed > max) {
    throw new HttpProblem(409, `group '${group.name}' has reached its quota of ${max} instance${max === 1 ? '' : 's'}`, { title: 'Quota reached' });
  }
}

async function ensureUsable(ctx: InstanceContext, engine: Engine) {
  const missing = await engine.unavailable();
  if (missing) throw new HttpProblem(503, missing, { title: 'Engine not installed' });
  const unreachable = engineCanReach(ctx.instancesDir);
  if (unreachable) throw new HttpProblem(503, unreachable, { title: 'Instance folder not reachable' });
}

async function checkInitialParameters(ctx: InstanceContext, engine: Engine, parameters: Record<string, string>): Promise<Record<string, string[]>> {
  const probe: InstanceRuntime = { id: 'new', dir: path.join(ctx.instancesDir, '.not-created'), port: 0 };
  try {
    return await engine.validate(probe, parameters);
  } catch {
    // The engine could not describe its parameters (a catalogue that could not be built): names are
    // checked now, values when the instance first starts, and its configuration stays repairable while offline.
    const names = Object.keys(parameters).filter((name) => !/^[a-z][a-z0-9_.-]*$/.test(name));
    return Object.fromEntries(names.map((name) => [name, [`${name} is not a parameter name.`]]));
  }
}
