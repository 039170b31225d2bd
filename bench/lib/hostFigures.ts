import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostChangedPayload } from '../../contracts/hosts';
import { buildApp, type App } from '../../server/app';
import { openPostgresStore } from '../../server/db/postgresStore';
import type { Db } from '../../server/db/schema';
import type { Engine } from '../../server/engines/engine';
import { inertEngine } from '../../test/server/instances/inertEngine';
import { benchConfig } from './benchConfig';

// Section 4 of bench/scale.ts: what hosts cost. How long an agent takes, after a restart, to adopt the
// instances of its host, and how long a server takes to find a host lost once its agent is gone.

/**
 * An engine whose every instance runs (a process id, a good probe) without any process: what an
 * agent finds after a restart, minus the engines' own probes (a connection and a query each for
 * PostgreSQL, a few milliseconds, not counted here).
 */
let starts = 0;

function runningEngine(type: 'pg' | 'etcd'): Engine {
  return {
    ...inertEngine(type),
    start: async () => void starts++,
    pid: () => 4242,
    probe: async () => ({ running: true, level: 'good', checks: [{ name: 'process', level: 'good', message: 'running' }] }),
  };
}

const engines = { pg: runningEngine('pg'), etcd: runningEngine('etcd') };

function appOn(db: Db, url: string, dataDir: string, env: Record<string, string>): App {
  const config = benchConfig(dataDir, { WARDEN_DATABASE_URL: url, WARDEN_BUILD_CLIENTS: 'never', WARDEN_PROBE_INTERVAL_MS: '3600000', ...env });
  return buildApp(config, { db, logger: false, engines });
}

/**
 * Seeds `count` running instances for a host whose agent is then restarted; answers the restarts'
 * wall times, ms: from building the agent to its being ready, every instance adopted (registered
 * again, every instance probed and its log tailed, none restarted).
 */
export async function adoptionTimes(url: string, count: number, rounds: number): Promise<{ ms: number[]; restarted: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-adopt-'));
  const db = openPostgresStore(url, 4);
  const agentEnv = { WARDEN_ROLE: 'agent', WARDEN_HOST_NAME: 'bench-host' };
  try {
    const first = appOn(db, url, dataDir, agentEnv);
    await first.ready();
    const hostId = first.instances.hostId!;
    await first.close();
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `adopt-${String(i).padStart(4, '0')}`,
      name: `adopt-${i}`,
      type: 'pg' as const,
      status: 'running' as const,
      desired_state: 'running' as const,
      status_reason: null,
      health_level: 'good' as const,
      health_checks: JSON.stringify([{ name: 'process', level: 'good', message: 'running' }]),
      group_id: null,
      engine_version: '15',
      port: 30_000 + i,
      peer_port: null,
      member_ports: null,
      cluster: null,
      description: '',
      created_at: now,
      created_by: null,
      last_backup_at: null,
      operation_kind: null,
      operation_started_at: null,
      version: 0,
      host_id: hostId,
    }));
    for (let start = 0; start < rows.length; start += 500) await db.insertInto('instances').values(rows.slice(start, start + 500)).execute();
    const ms: number[] = [];
    const startsBefore = starts;
    for (let round = 0; round < rounds; round++) {
      const begun = performance.now();
      const agent = appOn(db, url, dataDir, agentEnv);
      await agent.ready();
      ms.push(performance.now() - begun);
      await agent.close();
    }
    return { ms, restarted: starts - startsBefore };
  } finally {
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * An agent heartbeating every `heartbeatMs` and a server watching, on one store; the agent closed
 * (its heartbeats stop, as when it dies) at a random moment between two heartbeats; answers, for
 * each round, ms from the stop until the server announces the host lost.
 */
export async function lostDetectionTimes(url: string, heartbeatMs: number, rounds: number): Promise<number[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-lost-'));
  const db = openPostgresStore(url, 4);
  const server = appOn(db, url, dataDir, { WARDEN_ROLE: 'server' });
  const times: number[] = [];
  try {
    await server.ready();
    for (let round = 0; round < rounds; round++) {
      const agent = appOn(db, url, dataDir, { WARDEN_ROLE: 'agent', WARDEN_HOST_NAME: 'bench-lost', WARDEN_HEARTBEAT_MS: String(heartbeatMs) });
      await agent.ready();
      await new Promise((resolve) => setTimeout(resolve, heartbeatMs * (1 + Math.random())));
      const lost = new Promise<number>((resolve) => {
        const stop = server.instances.deps.bus.subscribe((event) => {
          if (event.event === 'HostChanged' && (event.payload as HostChangedPayload).change === 'lost') {
            stop();
            resolve(performance.now());
          }
        });
      });
      const stoppedAt = performance.now();
      await agent.close();
      times.push((await lost) - stoppedAt);
    }
    return times;
  } finally {
    await server.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
