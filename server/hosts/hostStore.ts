import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { hostLostAfterBeats, type Host } from '../../contracts/hosts';
import { portsInUse } from '../db/instances';
import type { Db, HostsTable } from '../db/schema';

// The hosts table: what an agent says of its machine, when it last heartbeat, and whether it is lost.

export type HostRow = Selectable<HostsTable>;

/** What an agent tells of its machine when it registers (and, for the disk, at every heartbeat). */
export interface HostFacts {
  name: string;
  address: string;
  cores: number;
  memoryBytes: number;
  diskFreeBytes: number;
  ports: { from: number; to: number };
  agentVersion: string;
  heartbeatMs: number;
}

/**
 * Registers a host by name, or takes its row over again after a restart (a new start time, online
 * again, the same id so its instances stay its own). Answers the row and whether it had been lost.
 */
export async function registerHost(db: Db, facts: HostFacts, now: Date): Promise<{ host: HostRow; wasLost: boolean; created: boolean }> {
  const at = now.toISOString();
  const values = {
    address: facts.address,
    cores: facts.cores,
    memory_bytes: facts.memoryBytes,
    disk_free_bytes: facts.diskFreeBytes,
    ports_from: facts.ports.from,
    ports_to: facts.ports.to,
    agent_version: facts.agentVersion,
    heartbeat_ms: facts.heartbeatMs,
    started_at: at,
    heartbeat_at: at,
    lost_at: null,
  };
  const existing = await db.selectFrom('hosts').selectAll().where('name', '=', facts.name).executeTakeFirst();
  if (existing) {
    await db.updateTable('hosts').set(values).where('id', '=', existing.id).execute();
    return { host: { ...existing, ...values }, wasLost: existing.lost_at !== null, created: false };
  }
  const host: HostRow = { id: randomUUID(), name: facts.name, draining: 0, created_at: at, api_url: null, ...values };
  await db.insertInto('hosts').values(host).execute();
  return { host, wasLost: false, created: true };
}

/** A heartbeat: the host is online as of `now`. Answers whether it had been found lost meanwhile. */
export async function heartbeat(db: Db, id: string, diskFreeBytes: number, now: Date): Promise<{ wasLost: boolean; known: boolean }> {
  const before = await db.selectFrom('hosts').select('lost_at').where('id', '=', id).executeTakeFirst();
  if (!before) return { wasLost: false, known: false };
  await db.updateTable('hosts').set({ heartbeat_at: now.toISOString(), disk_free_bytes: diskFreeBytes, lost_at: null }).where('id', '=', id).execute();
  return { wasLost: before.lost_at !== null, known: true };
}

/**
 * Marks lost every online host whose agent has missed `hostLostAfterBeats` of its heartbeats. Each
 * host is marked by one update conditional on the heartbeat seen, so of several servers watching,
 * exactly one finds it lost and says so, and a heartbeat meanwhile keeps it online. `except`: the
 * watcher's own host, which is not lost while the watcher runs (however late its clock).
 */
export async function markLostHosts(db: Db, now: Date, except: string | null): Promise<HostRow[]> {
  const online = (await db.selectFrom('hosts').selectAll().where('lost_at', 'is', null).execute()).filter((host) => host.id !== except);
  const late = online.filter((host) => now.getTime() - Date.parse(host.heartbeat_at) > hostLostAfterBeats * host.heartbeat_ms);
  const lost: HostRow[] = [];
  for (const host of late) {
    const { numUpdatedRows } = await db
      .updateTable('hosts')
      .set({ lost_at: now.toISOString() })
      .where('id', '=', host.id)
      .where('lost_at', 'is', null)
      .where('heartbeat_at', '=', host.heartbeat_at)
      .executeTakeFirst();
    if (Number(numUpdatedRows) === 1) lost.push({ ...host, lost_at: now.toISOString() });
  }
  return lost;
}

export function findHostRow(db: Db, id: string): Promise<HostRow | undefined> {
  return db.selectFrom('hosts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setDraining(db: Db, id: string, draining: boolean): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('hosts')
    .set({ draining: draining ? 1 : 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(numUpdatedRows) === 1;
}

/** Every host as admins see it, by name: its instances and the ports of its range still free. */
export async function hostViews(db: Db): Promise<Host[]> {
  const hosts = await db.selectFrom('hosts').selectAll().orderBy('name').execute();
  if (hosts.length === 0) return [];
  const counts = await db
    .selectFrom('instances')
    .select(['host_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('host_id')
    .execute();
  const used = await portsInUse(db);
  return hosts.map((row) => {
    let taken = 0;
    for (const port of used) if (port >= row.ports_from && port <= row.ports_to) taken++;
    return toHost(row, Number(counts.find((c) => c.host_id === row.id)?.n ?? 0), row.ports_to - row.ports_from + 1 - taken);
  });
}

export async function hostView(db: Db, id: string): Promise<Host | undefined> {
  return (await hostViews(db)).find((host) => host.id === id);
}

function toHost(row: HostRow, instanceCount: number, freePorts: number): Host {
  return {
    id: row.id,
    name: row.name,
    address: row.address,
    state: row.lost_at ? 'lost' : 'online',
    draining: row.draining === 1,
    cores: row.cores,
    memoryBytes: row.memory_bytes,
    diskFreeBytes: row.disk_free_bytes,
    ports: { from: row.ports_from, to: row.ports_to },
    freePorts,
    instanceCount,
    agentVersion: row.agent_version,
    startedAt: row.started_at,
    lastHeartbeatAt: row.heartbeat_at,
    lostAt: row.lost_at,
  };
}

/**
 * Where a new instance goes: the online, undrained host with the most free capacity — the fewest
 * instances per core, then the most free disk — among those with a free port. Undefined when none.
 */
export function placeOn(hosts: Host[], portsNeeded: number): Host | undefined {
  const candidates = hosts.filter((h) => h.state === 'online' && !h.draining && h.freePorts >= portsNeeded);
  const load = (h: Host) => (h.instanceCount + 1) / Math.max(1, h.cores);
  return candidates.sort((a, b) => load(a) - load(b) || b.diskFreeBytes - a.diskFreeBytes || a.name.localeCompare(b.name))[0];
}
