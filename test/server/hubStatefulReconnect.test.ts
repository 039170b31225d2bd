import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import net from 'node:net';
import WebSocket from 'ws';
import { statefulReconnectBufferSize } from '../../contracts/hub';
import { InProcessBus } from '../../server/hub/bus';
import { defaultHubLimits, type HubLimits } from '../../server/hub/hub';
import { addUser, cookieLogin, origin, setup, type Harness } from './helpers';

// Stateful reconnect (SPEC §9): a socket that drops is resumed by its connection token, and the
// events pushed meanwhile arrive after a Sequence message, none lost and none twice.

const RS = '\u001e';
let h: Harness;
let bus: InProcessBus;
let baseUrl: string;
let cookie: string;
const sockets: WebSocket[] = [];
const opened: HubConnection[] = [];
const servers: net.Server[] = [];

async function start(limits: Partial<HubLimits> = {}) {
  bus = new InProcessBus();
  h = await setup({ bus, hubLimits: { ...defaultHubLimits, ...limits } });
  await addUser(h.db, 'alice@example.com');
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  cookie = await cookieLogin(h, 'alice@example.com');
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.stop().catch(() => undefined)));
  for (const s of sockets.splice(0)) s.terminate();
  for (const s of servers.splice(0)) s.close();
  await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(predicate: () => boolean, timeoutMs = 5000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await sleep(20);
  }
}

async function negotiate(query = 'negotiateVersion=1&useStatefulReconnect=true', as = cookie) {
  return h.app.inject({ method: 'POST', url: `/uihub/negotiate?${query}`, headers: { cookie: as, origin } });
}

/** A raw socket on a negotiated connection; records every record it receives, parsed. */
function connect(token: string) {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/uihub?id=${encodeURIComponent(token)}`, { headers: { cookie, origin } });
  sockets.push(socket);
  // A refused socket is reported through `opened`.
  socket.on('error', () => undefined);
  const records: Record<string, unknown>[] = [];
  socket.on('message', (data) => {
    for (const record of data.toString().split(RS).filter(Boolean)) records.push(JSON.parse(record) as Record<string, unknown>);
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (req, res) => {
      req.destroy();
      reject(new Error(`HTTP ${res.statusCode}`));
    });
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const send = (...messages: object[]) => socket.send(messages.map((m) => JSON.stringify(m) + RS).join(''));
  return { socket, records, opened, closed, send };
}

const debug = (text: string) => bus.publish({ event: 'DebugMessage', payload: { text }, audience: { kind: 'all' } });
const texts = (records: Record<string, unknown>[]) =>
  records.filter((r) => r.type === 1).map((r) => (r.arguments as { text: string }[])[0].text);

describe('negotiate', () => {
  beforeEach(() => start());

  it('answers a connection token, WebSockets as the one transport, and stateful reconnect when asked', async () => {
    const res = await negotiate();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      negotiateVersion: 1,
      connectionId: expect.any(String),
      connectionToken: expect.stringMatching(/^[\w-]{40,}$/),
      useStatefulReconnect: true,
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
    });
    expect((await negotiate('negotiateVersion=1')).json().useStatefulReconnect).toBe(false);
  });

  it('refuses an anonymous caller, a foreign Origin and unknown query fields', async () => {
    expect((await h.app.inject({ method: 'POST', url: '/uihub/negotiate?negotiateVersion=1', headers: { origin } })).statusCode).toBe(401);
    const foreign = await h.app.inject({
      method: 'POST',
      url: '/uihub/negotiate?negotiateVersion=1',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect((await negotiate('negotiateVersion=1&x=1')).statusCode).toBe(400);
  });

  it('refuses a socket with an unknown token or another session’s token', async () => {
    await expect(connect('not-a-token').opened).rejects.toThrow('HTTP 404');
    const other = await cookieLogin(h, 'alice@example.com');
    const { connectionToken } = (await negotiate(undefined, other)).json();
    await expect(connect(connectionToken).opened).rejects.toThrow('HTTP 404');
  });
});

describe('resuming a dropped socket', () => {
  beforeEach(() => start());

  it('sends a Sequence, then every unacknowledged message, the ones pushed while it was away included', async () => {
    const { connectionToken } = (await negotiate()).json();
    const first = connect(connectionToken);
    await first.opened;
    first.send({ protocol: 'json', version: 1 }, { type: 1, invocationId: '1', target: 'JoinGroups', arguments: [] });
    await waitFor(() => first.records.some((r) => r.type === 3));
    // The server acknowledges the client's message 1; its Completion is the server's message 1.
    expect(first.records).toEqual([{}, { type: 8, sequenceId: 1 }, { type: 3, invocationId: '1', result: null }]);

    debug('before the drop'); // message 2
    await waitFor(() => texts(first.records).length === 1);
    first.send({ type: 8, sequenceId: 1 }); // the Completion arrived; the event is not acknowledged yet
    await sleep(50);
    first.socket.terminate();
    await first.closed;
    await sleep(50);
    debug('while away'); // message 3, with no socket to go to

    const second = connect(connectionToken);
    await second.opened;
    await waitFor(() => second.records.length >= 3);
    expect(second.records[0]).toEqual({ type: 9, sequenceId: 2 });
    expect(texts(second.records)).toEqual(['before the drop', 'while away']);

    // The client resends from its message 1: the duplicate is acknowledged, not run again.
    second.send(
      { type: 9, sequenceId: 1 },
      { type: 1, invocationId: '1', target: 'JoinGroups', arguments: [] },
      { type: 1, invocationId: '2', target: 'LeaveGroups', arguments: [] },
    );
    await waitFor(() => second.records.some((r) => r.invocationId === '2'));
    await sleep(50);
    expect(second.records.filter((r) => r.type === 3)).toEqual([{ type: 3, invocationId: '2', result: null }]);
    expect(second.records.filter((r) => r.type === 8)).toEqual([
      { type: 8, sequenceId: 1 },
      { type: 8, sequenceId: 2 },
    ]);
    // The groups survived the drop: the next event still reaches the connection, numbered on.
    debug('after');
    await waitFor(() => texts(second.records).includes('after'));
  });

  it('forgets acknowledged messages, and a connection not back within the grace period', async () => {
    await h.close();
    await start({ reconnectGraceMs: 200, pingIntervalMs: 50 });
    const { connectionToken } = (await negotiate()).json();
    const first = connect(connectionToken);
    await first.opened;
    first.send({ protocol: 'json', version: 2 });
    await waitFor(() => first.records.length >= 1);
    debug('seen');
    await waitFor(() => texts(first.records).length === 1);
    first.send({ type: 8, sequenceId: 1 });
    await sleep(50);
    first.socket.terminate();
    await first.closed;

    const second = connect(connectionToken);
    await second.opened;
    await waitFor(() => second.records.length >= 1);
    await sleep(50);
    expect(second.records.filter((r) => r.type !== 6)).toEqual([{ type: 9, sequenceId: 2 }]);

    second.socket.terminate();
    await second.closed;
    await sleep(500);
    await expect(connect(connectionToken).opened).rejects.toThrow('HTTP 404');
  });

  it('does not keep a connection its client closed on purpose (a page going away)', async () => {
    const { connectionToken } = (await negotiate()).json();
    const first = connect(connectionToken);
    await first.opened;
    first.send({ protocol: 'json', version: 2 });
    await waitFor(() => first.records.length >= 1);
    first.socket.close(1001);
    await first.closed;
    await sleep(50);
    await expect(connect(connectionToken).opened).rejects.toThrow('HTTP 404');
  });

  it('does not resume a connection negotiated without stateful reconnect', async () => {
    const { connectionToken } = (await negotiate('negotiateVersion=1')).json();
    const first = connect(connectionToken);
    await first.opened;
    first.send({ protocol: 'json', version: 1 });
    await waitFor(() => first.records.length === 1);
    first.socket.terminate();
    await first.closed;
    await sleep(50);
    await expect(connect(connectionToken).opened).rejects.toThrow('HTTP 404');
  });

  it('drops the oldest kept messages past the buffer size, so the client sees the gap', async () => {
    await h.close();
    await start({ replayBufferBytes: 1000 });
    const { connectionToken } = (await negotiate()).json();
    const first = connect(connectionToken);
    await first.opened;
    first.send({ protocol: 'json', version: 1 });
    await waitFor(() => first.records.length === 1);
    first.socket.terminate();
    await first.closed;
    await sleep(50);
    for (let i = 1; i <= 20; i++) debug(`event ${i} ${'x'.repeat(60)}`);

    const second = connect(connectionToken);
    await second.opened;
    await waitFor(() => second.records.length >= 2);
    await sleep(50);
    const [sequence, ...kept] = second.records;
    // Message 1 is gone: a client that never had it stops at this Sequence and starts a new connection.
    expect((sequence as { sequenceId: number }).sequenceId).toBeGreaterThan(1);
    expect(kept.length).toBe(21 - (sequence as { sequenceId: number }).sequenceId);
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(1000);
    expect(texts(kept).at(-1)).toMatch(/^event 20 /);
  });
});

/** A TCP relay to the server whose links can all be cut at once: a network drop the client cannot tell from a real one. */
async function relay(target: string) {
  const { port } = new URL(target);
  const links = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(port), '127.0.0.1');
    inbound.pipe(outbound).pipe(inbound);
    for (const s of [inbound, outbound]) {
      links.add(s);
      s.on('error', () => undefined);
      s.on('close', () => links.delete(s));
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      for (const s of links) s.destroy();
    },
  };
}

describe('the official client with withStatefulReconnect', () => {
  beforeEach(() => start());

  it('loses no event across a network drop and never reports a reconnect', async () => {
    const network = await relay(baseUrl);
    const connection = new HubConnectionBuilder()
      .withUrl(`${network.url}/uihub`, { transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
      .withStatefulReconnect({ bufferSize: statefulReconnectBufferSize })
      .withAutomaticReconnect([0, 2000, 10000, 30000])
      .configureLogging(LogLevel.None)
      .build();
    opened.push(connection);
    const received: string[] = [];
    let reconnecting = 0;
    connection.on('DebugMessage', (payload: { text: string }) => received.push(payload.text));
    connection.onreconnecting(() => reconnecting++);
    await connection.start();
    await connection.invoke('JoinGroups');

    debug('one');
    await waitFor(() => received.length === 1);
    network.cut();
    debug('two');
    debug('three');
    await waitFor(() => received.length === 3);
    debug('four');
    await waitFor(() => received.length === 4);
    await sleep(100);

    expect(received).toEqual(['one', 'two', 'three', 'four']);
    expect(reconnecting).toBe(0);
    await expect(connection.invoke('LeaveGroups')).resolves.toBeNull();
  });
});
