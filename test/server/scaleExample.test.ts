import { createHash } from 'node:crypto';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { HostList } from '../../contracts/hosts';
import type { Instance } from '../../contracts/instances';
import { removeInstanceUser } from '../../server/engines/instanceUsers';
import { freeBasePort, scaleExamplePortList, scaleExamplePorts, startScaleExample, type ScaleExample } from '../../scripts/lib/scale/example';
import { haproxyConfig } from '../../scripts/lib/scale/haproxy';
import { processAlive as alive } from './helpers';

// The scale example (deploy/scale/README.md) for real: a PostgreSQL store, two API servers behind
// HAProxy and two agents, each a process of its own, used as an operator would through HAProxy;
// then stopped, leaving nothing running or listening.

jest.setTimeout(300_000);

const root = path.resolve(__dirname, '../..');
/** The agents' instance ports (both ranges), away from those of other suites (16400-16999 among them). */
const instancePorts = { from: 21000, to: 21599 };


/** Every TCP port something listens on, IPv4 or IPv6. */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A') ports.add(parseInt(local.split(':').at(-1)!, 16));
    }
  }
  return ports;
}

/** Processes whose command line or environment names `dir`: the example's pieces and instances. */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(dir) || fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(dir)) found.push(`${pid}: ${cmdline.replace(/\0/g, ' ')}`);
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

let dir: string;
let example: ScaleExample;
let ports: ReturnType<typeof scaleExamplePorts>;
let cookie: string;
/** Instances the tests made: their system users go with the run. */
const createdIds: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-scale-'));
  // Below the kernel's ephemeral ports and above the instance ranges other suites use (up to 19999).
  const basePort = await freeBasePort(20400, instancePorts.from - 20);
  ports = scaleExamplePorts(basePort);
  example = await startScaleExample({ dir, basePort, instancePortBase: instancePorts.from });
});

afterAll(async () => {
  // The last test stops it; this is for a run that failed before.
  await example?.stop().catch(() => undefined);
  for (const id of createdIds) await removeInstanceUser(id);
  fs.rmSync(dir, { recursive: true, force: true });
});

const call = (method: 'GET' | 'POST', route: string, body?: object) =>
  fetch(example.url + route, {
    method,
    headers: { origin: example.url, cookie, ...(body && { 'content-type': 'application/json' }) },
    ...(body && { body: JSON.stringify(body) }),
  });

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs / 1000} s for ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

it('keeps deploy/scale/haproxy.cfg as the example writes it with the default ports', () => {
  const defaults = scaleExamplePorts();
  const servers = ['server-a', 'server-b'].map((name, i) => ({ name, port: defaults.servers[i] }));
  expect(fs.readFileSync(path.join(root, 'deploy/scale/haproxy.cfg'), 'utf8')).toBe(haproxyConfig(defaults.proxy, servers));
  expect(fs.readFileSync(path.join(dir, 'haproxy.cfg'), 'utf8')).toBe(
    haproxyConfig(ports.proxy, servers.map((server, i) => ({ ...server, port: ports.servers[i] }))),
  );
});

it('signs the admin in through HAProxy and shows both hosts online', async () => {
  const login = await fetch(`${example.url}/auth/login?useCookies=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: example.url },
    body: JSON.stringify(example.admin),
  });
  expect(login.status).toBe(200);
  cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('warden_session=')) ?? '';
  expect(cookie).toMatch(/^warden_session=./);

  const hosts = await waitFor(
    'host-1 and host-2 online',
    async () => {
      const res = await call('GET', '/hosts');
      expect(res.status).toBe(200);
      return ((await res.json()) as HostList).items.map((host) => ({ name: host.name, state: host.state }));
    },
    (items) => ['host-1', 'host-2'].every((name) => items.some((host) => host.name === name && host.state === 'online')),
  );
  expect(hosts.map((host) => host.name).sort()).toEqual(['host-1', 'host-2']);
});

it('keeps answering through HAProxy while a server is down, and takes it back once started again', async () => {
  const [a] = example.servers;
  await a.kill('SIGKILL');
  for (let i = 0; i < 6; i++) expect((await call('GET', '/hosts')).status).toBe(200);
  await a.start();
  expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
});

it('runs an instance on one of the hosts, in that host\'s port range', async () => {
  const created = await call('POST', '/instances', { name: 'scale-check', type: 'pg' });
  expect(created.status).toBe(202);
  const { id } = (await created.json()) as Instance;
  createdIds.push(id);
  const instance = await waitFor(
    'the instance running',
    async () => (await (await call('GET', `/instances/${id}`)).json()) as Instance,
    (i) => i.status === 'running',
    120_000,
  );
  expect(instance.port).toBeGreaterThanOrEqual(instancePorts.from);
  expect(instance.port).toBeLessThanOrEqual(instancePorts.to);
  expect(listeningPorts().has(instance.port)).toBe(true);
});

/** A browser's live connection to one server, joined to the instance list, recording what it is pushed. */
async function browserOn(base: string) {
  const connection = new HubConnectionBuilder()
    .withUrl(`${base}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: example.url } })
    .configureLogging(LogLevel.None)
    .build();
  const seen: { event: string; payload: { instanceId?: string; kind?: string; ok?: boolean; instance?: Instance } }[] = [];
  for (const event of ['InstanceUpdated', 'OperationCompleted']) connection.on(event, (payload) => seen.push({ event, payload }));
  await connection.start();
  await connection.invoke('JoinInstances');
  return { connection, seen };
}

const hostsNow = async () => ((await (await call('GET', '/hosts')).json()) as HostList).items;
const instanceNow = async (id: string, base = example.url) =>
  (await (await fetch(`${base}/instances/${id}`, { headers: { cookie, origin: example.url } })).json()) as Instance;

/** The postmaster of an instance on a host, from its pid file: its pid and when it started. */
function postmasterOf(hostName: string, id: string): { pid: number; started: string } {
  const [pid, , started] = fs.readFileSync(path.join(dir, hostName, 'instances', id, 'data', 'postmaster.pid'), 'utf8').split('\n');
  return { pid: Number(pid), started };
}

let placedId: string;

it('makes an instance through server A on host-2, stops and starts it through server B, and browsers on both servers see each step', async () => {
  const [a, b] = example.servers;
  const onA = await browserOn(a.url);
  const onB = await browserOn(b.url);
  try {
    const host2 = (await hostsNow()).find((host) => host.name === 'host-2')!;
    const created = await fetch(`${a.url}/instances`, {
      method: 'POST',
      headers: { cookie, origin: example.url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'on-host-2', type: 'pg', hostId: host2.id }),
    });
    expect(created.status).toBe(202);
    const instance = (await created.json()) as Instance;
    placedId = instance.id;
    createdIds.push(instance.id);
    expect(instance).toMatchObject({ hostId: host2.id, operation: { kind: 'create' } });
    await waitFor('the instance running', () => instanceNow(instance.id, b.url), (i) => i.status === 'running' && i.operation === null, 120_000);

    for (const kind of ['stop', 'start'] as const) {
      const res = await fetch(`${b.url}/instances/${instance.id}/${kind}`, { method: 'POST', headers: { cookie, origin: example.url, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(202);
      await waitFor(`the ${kind}`, () => instanceNow(instance.id, a.url), (i) => i.status === (kind === 'stop' ? 'stopped' : 'running') && i.operation === null, 60_000);
    }
    for (const browser of [onA, onB]) {
      await waitFor(
        'every operation\'s end on both servers',
        async () => browser.seen.filter((e) => e.event === 'OperationCompleted' && e.payload.instanceId === instance.id).map((e) => `${e.payload.kind} ${e.payload.ok}`),
        (ends) => ends.join() === 'create true,stop true,start true',
        10_000,
      );
    }
  } finally {
    await onA.connection.stop();
    await onB.connection.stop();
  }
});

/** A client of the instance as its owner, with the address and password the console gives. */
async function ownerClient(id: string): Promise<pg.Client> {
  const { host, port, user, database } = (await (await call('GET', `/instances/${id}/connection`)).json()) as { host: string; port: number; user: string; database: string };
  const { password } = (await (await call('POST', `/instances/${id}/connection/secret`, {})).json()) as { password: string };
  const client = new pg.Client({ host, port, user, database, password });
  await client.connect();
  return client;
}

let backupId: string;

it('forwards what needs the instance\'s files to its host\'s agent: its configuration, connection secret, a backup, and the backup\'s download', async () => {
  const headers = { cookie, origin: example.url, 'content-type': 'application/json' };
  const owner = await ownerClient(placedId);
  await owner.query(`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('made on host-2')`);
  await owner.end();
  const config = await fetch(`${example.servers[0].url}/instances/${placedId}/config`, { headers });
  expect(config.status).toBe(200);
  expect(((await config.json()) as { parameters: { name: string }[] }).parameters.some((p) => p.name === 'work_mem')).toBe(true);

  const taken = await fetch(`${example.servers[1].url}/instances/${placedId}/backups/database/backup`, { method: 'POST', headers, body: '{}' });
  expect(taken.status).toBe(202);
  const backup = (await taken.json()) as { id: string };
  backupId = backup.id;
  await waitFor(
    'the backup to succeed',
    async () => ((await (await call('GET', `/instances/${placedId}/backups/database`)).json()) as { items: { id: string; status: string }[] }).items,
    (items) => items.some((b) => b.id === backup.id && b.status === 'succeeded'),
    60_000,
  );
  // Kept in host-2's data folder, never on a server's.
  expect(fs.readdirSync(path.join(dir, 'host-2', 'backups'), { recursive: true }).length).toBeGreaterThan(0);
  const { url } = (await (await call('GET', `/instances/${placedId}/backups/url/${backup.id}`)).json()) as { url: string };
  const download = await fetch(new URL(url, example.url));
  expect(download.status).toBe(200);
  const bytes = Buffer.from(await download.arrayBuffer());
  expect(bytes.length).toBeGreaterThan(0);
  expect(download.headers.get('x-checksum-sha256')).toBe(createHash('sha256').update(bytes).digest('hex'));
});

it('restores a backup kept on host-2 into a new instance on host-1, brought over by host-1\'s agent', async () => {
  const host1 = (await hostsNow()).find((host) => host.name === 'host-1')!;
  const cloned = await call('POST', `/instances/${placedId}/clone`, { name: 'restored-on-host-1', backupId, hostId: host1.id });
  expect(cloned.status).toBe(202);
  const clone = (await cloned.json()) as Instance;
  createdIds.push(clone.id);
  expect(clone.hostId).toBe(host1.id);
  await waitFor('the restored instance', () => instanceNow(clone.id), (i) => i.status === 'running' && i.operation === null, 120_000);
  const owner = await ownerClient(clone.id);
  expect((await owner.query('SELECT v FROM kept')).rows).toEqual([{ v: 'made on host-2' }]);
  await owner.end();
  // The copy brought over for the restore is gone; the backup stays on host-2 alone.
  expect(fs.existsSync(path.join(dir, 'host-1', 'backups')) ? fs.readdirSync(path.join(dir, 'host-1', 'backups'), { recursive: true }).filter((f) => String(f).endsWith('.tar')) : []).toEqual([]);
});

it('shows a host whose agent is killed as lost within three heartbeats, its instance unknown but running; the agent back adopts it unrestarted', async () => {
  const agent = example.agents.find((candidate) => candidate.hostName === 'host-2')!;
  const before = postmasterOf('host-2', placedId);
  expect(alive(before.pid)).toBe(true);
  const killedAt = Date.now();
  await agent.kill('SIGKILL');
  await waitFor('host-2 lost', hostsNow, (items) => items.some((host) => host.name === 'host-2' && host.state === 'lost'), 30_000);
  const detectedMs = Date.now() - killedAt;
  // Three heartbeats of 4 s, found by a check each second (and the last heartbeat may be 4 s old at the kill).
  expect(detectedMs).toBeLessThanOrEqual(3 * 4_000 + 4_000 + 1_500);
  expect(await instanceNow(placedId)).toMatchObject({ status: 'unknown', statusReason: expect.stringContaining('Host host-2 is lost') });
  expect(alive(before.pid)).toBe(true);
  const refused = await call('POST', `/instances/${placedId}/restart`, {});
  expect(refused.status).toBe(409);

  await agent.start();
  await waitFor('host-2 online', hostsNow, (items) => items.some((host) => host.name === 'host-2' && host.state === 'online'));
  await waitFor('the instance running again', () => instanceNow(placedId), (i) => i.status === 'running', 30_000);
  expect(postmasterOf('host-2', placedId)).toEqual(before);
});

it('stops the instances, HAProxy, the servers, the agents and the store, leaving nothing running or listening', async () => {
  await example.stop();
  const listening = listeningPorts();
  const examplePorts = [...scaleExamplePortList(ports.proxy), ...Array.from({ length: instancePorts.to - instancePorts.from + 1 }, (_, i) => instancePorts.from + i)];
  expect(examplePorts.filter((port) => listening.has(port))).toEqual([]);
  expect(processesUsing(dir)).toEqual([]);
});
