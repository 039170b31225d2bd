import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import { hubPath, type DebugMessagePayload } from '../contracts/hub';
import { buildApp, type App } from '../server/app';
import { migrateToLatest } from '../server/db/migrations';
import { openDb } from '../server/db/open';
import type { Db } from '../server/db/schema';
import { createUser } from '../server/db/users';
import { InProcessBus } from '../server/hub/bus';
import { defaultHubLimits } from '../server/hub/hub';
import { sessionCookieName } from '../server/http/sessionCookie';
import { Listeners, type TimedPayload } from './lib/listeners';
import { nowMs } from './lib/monotonicClock';
import { benchConfig } from './lib/benchConfig';
import { median, table, whole } from './lib/figures';

// `npm run bench -- hub [--quick]`: how fast /uihub fans broadcast events out to many clients,
// next to a bare `ws` server sending the same payloads to the same number of raw clients.

const quick = process.argv.includes('--quick');
const rounds = quick
  ? [{ clients: 50, events: 50 }]
  : [
      { clients: 100, events: 200 },
      { clients: 1000, events: 200 },
    ];
/** Events sent to each server first and not measured, so that servers and clients run warm code. */
const warmupEvents = 20;
const passCount = quick ? 3 : 5;
/** Raised from the default so that 1000 connections need only 10 users. */
const connectionsPerUser = 100;
const password = 'Bench-Password-7';
const payloadBytes = 200;

interface BenchPayload extends DebugMessagePayload, TimedPayload {
  seq: number;
}

const filler = 'x'.repeat(payloadBytes - JSON.stringify(payload(0, '')).length);

function payload(seq: number, text = filler): BenchPayload {
  return { text, from: 'bench@warden.local', sentAt: new Date().toISOString(), seq, sentAtMs: nowMs() };
}

interface Figures {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Deliveries that never arrived before the timeout; 0 in a healthy run. */
  missing: number;
}

/** A server under test with its clients connected: `send` hands it one event to broadcast. */
interface Target {
  name: 'warden' | 'plain';
  send(event: BenchPayload): void;
  close(): Promise<void>;
}

/**
 * Publishes one event per event-loop turn, as events reach the hub from requests and engines,
 * rather than in one synchronous burst that no socket could drain before the end.
 */
async function publishEach(count: number, send: (event: BenchPayload) => void) {
  for (let seq = 0; seq < count; seq++) {
    send(payload(seq));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function measure(listeners: Listeners, target: Target, events: number): Promise<Figures> {
  const delivery = await listeners.measure(target.name, events, () => publishEach(events, (event) => target.send(event)));
  return {
    eventsPerSecond: delivery.delivered / (delivery.wallMs / 1000),
    p50Ms: delivery.latencyP50Ms,
    p99Ms: delivery.latencyP99Ms,
    missing: delivery.expected - delivery.delivered,
  };
}

/** Creates `count` users and answers one session cookie header per user. */
async function signInUsers(app: App, db: Db, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = `bench-${i}@warden.local`;
    await createUser(db, { email, password, role: 'regular' });
    const res = await app.inject({ method: 'POST', url: '/auth/login?useCookies=true', payload: { email, password } });
    const cookie = res.cookies.find((c) => c.name === sessionCookieName);
    if (!cookie) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    cookies.push(`${sessionCookieName}=${cookie.value}`);
  }
  return cookies;
}

/** A real Warden app on a loopback port; events go through its bus to every signed-in connection. */
async function startWarden(listeners: Listeners, clients: number): Promise<Target> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'warden-bench-'));
  const config = benchConfig(dataDir)
  const db = openDb(':memory:');
  await migrateToLatest(db);
  const bus = new InProcessBus();
  const app = buildApp(config, {
    db,
    bus,
    logger: false,
    hubLimits: { ...defaultHubLimits, maxConnectionsPerUser: connectionsPerUser },
  });
  const close = async () => {
    await app.close();
    await db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const cookies = await signInUsers(app, db, Math.ceil(clients / connectionsPerUser));
    const perClient = Array.from({ length: clients }, (_, i) => cookies[i % cookies.length]);
    await listeners.connect('warden', `${baseUrl.replace(/^http/, 'ws')}${hubPath}`, perClient, true, config.allowedOrigins[0]);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    name: 'warden',
    send: (event) => bus.publish({ event: 'DebugMessage', payload: event, audience: { kind: 'all' } }),
    close,
  };
}

/** The baseline: a bare `ws` server that serializes each event once and sends it to every client. */
async function startPlain(listeners: Listeners, clients: number): Promise<Target> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    const { port } = server.address() as AddressInfo;
    await listeners.connect('plain', `ws://127.0.0.1:${port}`, new Array<null>(clients).fill(null), false);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    name: 'plain',
    send: (event) => {
      const frame = JSON.stringify(event);
      for (const client of server.clients) if (client.readyState === WebSocket.OPEN) client.send(frame);
    },
    close,
  };
}

/**
 * Both servers stay up with their clients connected while passes alternate between them, so that
 * a busy neighbour or a GC pause hits both alike; each figure is the median over the passes.
 */
async function runRound(listeners: Listeners, clients: number, events: number) {
  const targets: Target[] = [];
  try {
    targets.push(await startWarden(listeners, clients), await startPlain(listeners, clients));
    for (const target of targets) await measure(listeners, target, Math.min(warmupEvents, events));
    const passes: Record<Target['name'], Figures[]> = { warden: [], plain: [] };
    for (let pass = 0; pass < passCount; pass++) {
      for (const target of pass % 2 === 0 ? targets : [...targets].reverse()) {
        passes[target.name].push(await measure(listeners, target, events));
      }
    }
    return passes;
  } finally {
    await listeners.close();
    for (const target of targets) await target.close();
  }
}

function summarize(passes: Figures[]): Figures {
  return {
    eventsPerSecond: median(passes.map((f) => f.eventsPerSecond)),
    p50Ms: median(passes.map((f) => f.p50Ms)),
    p99Ms: median(passes.map((f) => f.p99Ms)),
    missing: passes.reduce((sum, f) => sum + f.missing, 0),
  };
}

const ms = (n: number) => n.toFixed(2);
const latency = (f: Figures) => `${ms(f.p50Ms)} / ${ms(f.p99Ms)}`;

async function main() {
  // Bounded whatever happens: a hung socket must not keep the bench alive.
  setTimeout(() => {
    console.error('bench/hub: gave up after 150 s');
    process.exit(1);
  }, 150_000).unref();

  console.log(
    `Broadcast fan-out over loopback: ${payloadBytes}-byte payloads, one published per event-loop turn; ` +
      `${warmupEvents} warm-up events per server, then ${passCount} passes of M events alternating between the servers; ` +
      'figures are medians over the passes, ratio the median of per-pass ratios.\n' +
      'Clients are raw `ws` sockets in one worker thread (the official @microsoft/signalr client, one per connection, ' +
      'is too heavy for 1000 in one process); against Warden they do the SignalR JSON handshake, ping every 15 s and parse ' +
      'Invocation frames, which carry ~50 bytes of envelope that the plain server does not send.\n' +
      'events/s = deliveries / (last client received the last event − first publish); latency = receive − publish, ms.\n',
  );
  const started = nowMs();
  const listeners = new Listeners();
  const rows = [['N', 'M', 'warden ev/s', 'plain ws ev/s', 'ratio', 'warden p50 / p99', 'plain p50 / p99']];
  const notes: string[] = [];
  try {
    for (const { clients, events } of rounds) {
      const passes = await runRound(listeners, clients, events);
      const warden = summarize(passes.warden);
      const plain = summarize(passes.plain);
      // Paired: each pass's ratio compares two runs seconds apart, under the same background load.
      const ratios = passes.warden.map((w, i) => w.eventsPerSecond / passes.plain[i].eventsPerSecond);
      notes.push(`N=${clients}: ratio per pass ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
      for (const [name, f] of [['warden', warden], ['plain ws', plain]] as const) {
        if (f.missing > 0) notes.push(`N=${clients}: ${name} LOST ${f.missing} deliveries`);
      }
      rows.push([
        String(clients),
        String(events),
        whole(warden.eventsPerSecond),
        whole(plain.eventsPerSecond),
        median(ratios).toFixed(2),
        latency(warden),
        latency(plain),
      ]);
    }
  } finally {
    await listeners.stop();
  }
  console.log(table(rows));
  console.log(`\n${notes.join('\n')}\n(${((nowMs() - started) / 1000).toFixed(1)} s)`);
  if (notes.some((note) => note.includes('LOST'))) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
