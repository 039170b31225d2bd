import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Instance } from '../../../contracts/instances';
import type { PageOf } from '../../../contracts/page';
import { haproxyConfig } from './haproxy';
import { Piece } from './piece';
import { agentRole, initStore, serverRole, setUpStoreRoles, storeDatabase, storePiece, storeUrl, type StorePasswords } from './store';

/*
 * Several servers and hosts on one machine (deploy/scale/README.md): a PostgreSQL store, two API
 * servers (WARDEN_ROLE=server) behind HAProxy, and two agents (WARDEN_ROLE=agent), each with a data
 * folder and a range of instance ports of its own, standing in for two hosts. Each piece is a
 * process of its own (piece.ts) logging to <dir>/logs/<name>.log, started once the one before it is
 * healthy. A folder used before is started again as it was left: same passwords, same instances.
 */

const root = path.resolve(__dirname, '..', '..', '..');
const haproxyBin = '/usr/sbin/haproxy';
const adminEmail = 'admin@warden.local';
/** Instance ports each agent hands out. */
const portsPerAgent = 300;
const serverNames = ['server-a', 'server-b'];

export interface ScaleExampleOptions {
  /** Holds everything: the store, each server's and host's data folder, the logs, the passwords. */
  dir: string;
  /** HAProxy's port (default 8080); servers take the next two, the store +10, the agents +11 and +12. */
  basePort?: number;
  /** The first agent's first instance port (default 16000); each agent has 300, the second 16300-16599. */
  instancePortBase?: number;
  /** Receives a line as each piece is ready. */
  log?: (line: string) => void;
}

export interface ExampleProcess {
  name: string;
  /** Sends a signal (SIGTERM unless told) and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same settings and waits until it is healthy. */
  start(): Promise<void>;
}

export interface ScaleExample {
  /** HAProxy: the console and the API. */
  url: string;
  admin: { email: string; password: string };
  store: { url: string };
  servers: Array<ExampleProcess & { url: string }>;
  agents: Array<ExampleProcess & { hostName: string; healthUrl: string }>;
  /**
   * Stops every instance through the API (waiting until none runs), then HAProxy, the servers, the
   * agents and the store; nothing of the example is left running or listening.
   */
  stop(): Promise<void>;
}

/** The ports the example listens on, from its base port. */
export function scaleExamplePorts(basePort = 8080) {
  return { proxy: basePort, servers: [basePort + 1, basePort + 2], store: basePort + 10, agents: [basePort + 11, basePort + 12] };
}

/** Every port the example listens on (not its instances'), from its base port. */
export function scaleExamplePortList(basePort?: number): number[] {
  const ports = scaleExamplePorts(basePort);
  return [ports.proxy, ...ports.servers, ports.store, ...ports.agents];
}

/** The first base port from `from` up to `to` (in steps of 20) whose every example port is free. */
export async function freeBasePort(from: number, to: number): Promise<number> {
  for (let base = from; base <= to; base += 20) {
    if (!(await Promise.all(scaleExamplePortList(base).map(portInUse))).some(Boolean)) return base;
  }
  throw new Error(`No free base port for the scale example from ${from} to ${to}.`);
}

interface Secrets extends StorePasswords {
  admin: string;
}

/** A random password that meets Warden's rules (digit, lower and upper case, symbol). */
const newPassword = () => `Wd-${randomBytes(18).toString('base64url')}-7a`;

/** The folder's passwords, made on its first start and kept (owner-only) for the next. */
function secretsOf(dir: string, agentCount: number): Secrets {
  const file = path.join(dir, 'secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Secrets;
  const secrets = { superuser: newPassword(), server: newPassword(), agents: Array.from({ length: agentCount }, newPassword), admin: newPassword() };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

async function healthy(url: string): Promise<boolean> {
  const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return response.status === 200;
}

/**
 * The environment of a server or agent: this one's, less its WARDEN_ settings but WARDEN_LOG_LEVEL,
 * plus `settings`. Servers log at warn unless told: at info, HAProxy's check every second is two
 * lines a second in their logs.
 */
function wardenEnv(settings: Record<string, string>, logLevel: string): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WARDEN_')));
  return { ...inherited, WARDEN_LOG_LEVEL: process.env.WARDEN_LOG_LEVEL ?? logLevel, WARDEN_BUILD_CLIENTS: 'never', ...settings };
}

/** server/main.ts under node with tsx's loader (not the tsx wrapper, which forks), healthy once /healthz answers. */
function wardenPiece(name: string, logsDir: string, url: string, settings: Record<string, string>): Piece {
  return new Piece({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', 'server/main.ts'],
    env: wardenEnv(settings, settings.WARDEN_ROLE === 'server' ? 'warn' : 'info'),
    cwd: root,
    logFile: path.join(logsDir, `${name}.log`),
    ready: () => healthy(url),
  });
}

const exampleProcess = (piece: Piece): ExampleProcess => ({
  name: piece.name,
  kill: (signal) => piece.kill(signal),
  start: () => piece.start(),
});

/** Starts every piece in order (see the top of this file); on a failure, stops those started and throws. */
export async function startScaleExample(options: ScaleExampleOptions): Promise<ScaleExample> {
  const log = options.log ?? (() => undefined);
  const dir = path.resolve(options.dir);
  const ports = scaleExamplePorts(options.basePort);
  const logsDir = path.join(dir, 'logs');
  fs.mkdirSync(logsDir, { recursive: true });
  // PostgreSQL and the instances' own users pass through it to their folders.
  fs.chmodSync(dir, 0o711);

  const listeners: Array<[string, number]> = [
    ['haproxy', ports.proxy],
    ...serverNames.map((name, i): [string, number] => [name, ports.servers[i]]),
    ['store', ports.store],
    ...ports.agents.map((port, i): [string, number] => [`agent-${i + 1}`, port]),
  ];
  for (const [name, port] of listeners) {
    if (await portInUse(port)) throw new Error(`Port ${port} (${name}) is in use: stop what listens there or choose another base port.`);
  }

  const secrets = secretsOf(dir, ports.agents.length);
  const admin = { email: adminEmail, password: secrets.admin };
  const url = `http://127.0.0.1:${ports.proxy}`;
  const storeDir = path.join(dir, 'store');
  const storeLog = path.join(logsDir, 'store.log');
  const store = storePiece(storeDir, ports.store, secrets.superuser, storeLog);

  const servers = serverNames.map((name, i) => {
    const serverUrl = `http://127.0.0.1:${ports.servers[i]}`;
    const piece = wardenPiece(name, logsDir, serverUrl, {
      WARDEN_ROLE: 'server',
      WARDEN_DATABASE_URL: storeUrl(ports.store, serverRole, secrets.server),
      WARDEN_HOST: '127.0.0.1',
      WARDEN_PORT: String(ports.servers[i]),
      WARDEN_DATA_DIR: path.join(dir, name),
      WARDEN_PUBLIC_URL: url,
      WARDEN_ADMIN_EMAIL: admin.email,
      WARDEN_ADMIN_PASSWORD: admin.password,
    });
    return { piece, url: serverUrl };
  });

  const agents = ports.agents.map((port, i) => {
    const hostName = `host-${i + 1}`;
    const firstPort = (options.instancePortBase ?? 16000) + i * portsPerAgent;
    const instancePorts = `${firstPort}-${firstPort + portsPerAgent - 1}`;
    const healthUrl = `http://127.0.0.1:${port}`;
    const piece = wardenPiece(`agent-${i + 1}`, logsDir, healthUrl, {
      WARDEN_ROLE: 'agent',
      WARDEN_DATABASE_URL: storeUrl(ports.store, agentRole(i + 1), secrets.agents[i]),
      WARDEN_HOST: '127.0.0.1',
      WARDEN_PORT: String(port),
      WARDEN_HOST_NAME: hostName,
      WARDEN_HOST_ADDRESS: '127.0.0.1',
      // Calls servers forward to it come from the console's origin.
      WARDEN_PUBLIC_URL: url,
      WARDEN_DATA_DIR: path.join(dir, hostName),
      WARDEN_INSTANCE_PORTS: instancePorts,
    });
    return { piece, hostName, healthUrl: `${healthUrl}/healthz`, instancePorts };
  });

  const configFile = path.join(dir, 'haproxy.cfg');
  const proxy = new Piece({
    name: 'haproxy',
    command: haproxyBin,
    args: ['-db', '-f', configFile],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: dir,
    logFile: path.join(logsDir, 'haproxy.log'),
    ready: () => healthy(url),
  });

  // Stopped in this order; the store last, as every other piece uses it.
  const stopOrder = [proxy, ...servers.map((s) => s.piece), ...agents.map((a) => a.piece), store];
  const stopPieces = async () => {
    for (const piece of stopOrder) await piece.kill();
  };

  try {
    initStore(storeDir, secrets.superuser, storeLog);
    await store.start();
    await setUpStoreRoles(ports.store, secrets);
    log(`store: PostgreSQL on 127.0.0.1:${ports.store}, database ${storeDatabase}`);
    // One after the other: the first migrates the store and creates the admin.
    for (const server of servers) {
      await server.piece.start();
      log(`${server.piece.name}: ${server.url}`);
    }
    for (const agent of agents) {
      await agent.piece.start();
      log(`${agent.piece.name}: host ${agent.hostName}, health ${agent.healthUrl}, instance ports ${agent.instancePorts}`);
    }
    fs.writeFileSync(configFile, haproxyConfig(ports.proxy, servers.map((s, i) => ({ name: s.piece.name, port: ports.servers[i] }))));
    await proxy.start();
    log(`HAProxy: ${url}, round robin over ${serverNames.join(' and ')}`);
  } catch (error) {
    await stopPieces();
    throw error;
  }

  let stopping: Promise<void> | null = null;
  return {
    url,
    admin,
    store: { url: storeUrl(ports.store, serverRole, secrets.server) },
    servers: servers.map(({ piece, url: serverUrl }) => ({ ...exampleProcess(piece), url: serverUrl })),
    agents: agents.map(({ piece, hostName, healthUrl }) => ({ ...exampleProcess(piece), hostName, healthUrl })),
    stop() {
      stopping ??= (async () => {
        // Agents leave their instances running when they stop: the instances go first.
        const left = await stopAllInstances(url, admin).then(
          () => null,
          (error: unknown) => error,
        );
        await stopPieces();
        if (left) throw left;
      })();
      return stopping;
    },
  };
}

/**
 * Every instance stopped through the API, as the admin: each one that runs or should is asked to
 * stop (again, once an operation in flight ends), until none runs or has an operation in flight.
 */
async function stopAllInstances(url: string, admin: { email: string; password: string }, timeoutMs = 120_000): Promise<void> {
  const call = await signIn(url, admin);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const busy = (await allInstances(call)).filter((i) => i.status === 'running' || i.desiredState === 'running' || i.operation !== null);
    if (busy.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`Instances still running or busy after ${timeoutMs / 1000} s: ${busy.map((i) => `${i.name} (${i.status})`).join(', ')}`);
    }
    for (const instance of busy.filter((i) => i.operation === null && i.desiredState === 'running')) {
      const response = await call('POST', `/instances/${instance.id}/stop`, {});
      // 409: an operation began meanwhile; the next round asks again.
      if (response.status !== 202 && response.status !== 409) throw new Error(`Stopping ${instance.name}: ${response.status} ${await response.text()}`);
      await response.body?.cancel();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

type Call = (method: 'GET' | 'POST', route: string, body?: unknown) => Promise<Response>;

/** Signs in with a cookie as the console does; answers calls made with it and the console's Origin. */
async function signIn(url: string, admin: { email: string; password: string }): Promise<Call> {
  const headers = { accept: 'application/json', origin: url };
  const withBody = (body: unknown) => ({ headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const login = await fetch(`${url}/auth/login?useCookies=true`, { method: 'POST', ...withBody(admin) });
  if (login.status !== 200) throw new Error(`Signing in as ${admin.email}: ${login.status} ${await login.text()}`);
  await login.body?.cancel();
  const cookie = login.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');
  return (method, route, body) => {
    const request = body === undefined ? { headers } : withBody(body);
    return fetch(url + route, { method, ...request, headers: { ...request.headers, cookie } });
  };
}

async function allInstances(call: Call): Promise<Instance[]> {
  const instances: Instance[] = [];
  for (let page = 1; ; page++) {
    const response = await call('GET', `/instances?page=${page}&pageSize=200`);
    if (response.status !== 200) throw new Error(`Listing instances: ${response.status} ${await response.text()}`);
    const { items, total } = (await response.json()) as PageOf<Instance>;
    instances.push(...items);
    if (items.length === 0 || instances.length >= total) return instances;
  }
}
