import { HttpTransportType, HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import WebSocket from 'ws';
import { InProcessBus } from '../../server/hub/bus';
import { defaultHubLimits, type HubLimits } from '../../server/hub/hub';
import { checkHandshake, parseClientMessage, ProtocolError } from '../../server/hub/protocol';
import { addUser, bearerLogin, cookieLogin, origin, setup, type Harness } from './helpers';

const RS = '\u001e';
let h: Harness;
let bus: InProcessBus;
let baseUrl: string;
const opened: HubConnection[] = [];
const sockets: WebSocket[] = [];

async function start(limits: Partial<HubLimits> = {}) {
  bus = new InProcessBus();
  h = await setup({ bus, hubLimits: { ...defaultHubLimits, ...limits } });
  await addUser(h.db, 'alice@example.com');
  await addUser(h.db, 'root@example.com', 'admin');
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
}

afterEach(async () => {
  // A connection that never connected may never settle its stop(): do not wait on it forever.
  await Promise.all(opened.splice(0).map((c) => Promise.race([c.stop().catch(() => undefined), sleep(500)])));
  for (const s of sockets.splice(0)) s.terminate();
  await h.close();
});

/** The official client with the session cookie and, as a browser sends it, the page's Origin. */
function client(cookie: string, options: { keepAliveMs?: number; serverTimeoutMs?: number; headers?: Record<string, string> } = {}) {
  const connection = new HubConnectionBuilder()
    .withUrl(`${baseUrl}/uihub`, {
      skipNegotiation: true,
      transport: HttpTransportType.WebSockets,
      headers: options.headers ?? { Cookie: cookie, Origin: origin },
    })
    .withKeepAliveInterval(options.keepAliveMs ?? 15_000)
    .withServerTimeout(options.serverTimeoutMs ?? 30_000)
    .configureLogging(LogLevel.None)
    .build();
  opened.push(connection);
  return connection;
}

/** A raw WebSocket to the hub, for frames the official client never sends; the page's Origin unless other headers are given. */
function raw(cookie: string, headers: Record<string, string> = { origin }) {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/uihub`, { headers: { cookie, ...headers } });
  sockets.push(socket);
  const frames: string[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.on('message', (data) => frames.push(data.toString()));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (req, res) => {
      // With a listener here, ws leaves the refused request open; end it so the server can close.
      req.destroy();
      reject(new Error(`HTTP ${res.statusCode}`));
    });
    socket.once('error', reject);
  });
  const next = async (count: number) => {
    for (let i = 0; i < 100 && frames.length < count; i++) await sleep(20);
    return frames.slice(0, count);
  };
  return { socket, frames, opened, closed, next };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the official client against /uihub', () => {
  beforeEach(() => start());

  it('connects, joins a group and gets a completion, and receives pushed events with on()', async () => {
    const connection = client(await cookieLogin(h, 'alice@example.com'));
    const received: unknown[] = [];
    connection.on('DebugMessage', (payload) => received.push(payload));
    await connection.start();
    expect(connection.state).toBe(HubConnectionState.Connected);

    await expect(connection.invoke('JoinGroups')).resolves.toBeNull();
    bus.publish({ event: 'DebugMessage', payload: { text: 'hello' }, audience: { kind: 'all' } });
    bus.publish({ event: 'DebugMessage', payload: { text: 'to groups' }, audience: { kind: 'group', group: 'groups' } });
    bus.publish({ event: 'DebugMessage', payload: { text: 'admins only' }, audience: { kind: 'admins' } });

    await waitFor(() => received.length >= 2);
    await sleep(100);
    expect(received).toEqual([{ text: 'hello' }, { text: 'to groups' }]);
  });

  it('delivers a scoped event to the groups’ listeners who are admins or named, and to nobody else', async () => {
    const alice = await cookieLogin(h, 'alice@example.com');
    const named = client(alice);
    const admin = client(await cookieLogin(h, 'root@example.com'));
    const notJoined = client(alice);
    const got = { named: [] as unknown[], admin: [] as unknown[], notJoined: [] as unknown[] };
    named.on('InstanceUpdated', (p) => got.named.push(p));
    admin.on('InstanceUpdated', (p) => got.admin.push(p));
    notJoined.on('InstanceUpdated', (p) => got.notJoined.push(p));
    await Promise.all([named.start(), admin.start(), notJoined.start()]);
    await named.invoke('JoinInstances');
    await admin.invoke('JoinInstances');
    const aliceId = (await h.db.selectFrom('users').select('id').where('email', '=', 'alice@example.com').executeTakeFirstOrThrow()).id;

    bus.publish({ event: 'InstanceUpdated', payload: { n: 1 }, audience: { kind: 'scoped', groups: ['instances'], userIds: [] } });
    bus.publish({ event: 'InstanceUpdated', payload: { n: 2 }, audience: { kind: 'scoped', groups: ['instances'], userIds: [aliceId] } });
    await waitFor(() => got.named.length >= 1 && got.admin.length >= 2);
    await sleep(100);
    expect(got).toEqual({ named: [{ n: 2 }], admin: [{ n: 1 }, { n: 2 }], notJoined: [] });
  });

  it('rejects an unknown hub method with its name', async () => {
    const connection = client(await cookieLogin(h, 'alice@example.com'));
    await connection.start();
    await expect(connection.invoke('Explode')).rejects.toThrow("Unknown hub method 'Explode'");
    await expect(connection.invoke('JoinNothing')).rejects.toThrow("Unknown hub method 'JoinNothing'");
  });

  it('answers Forbidden when a regular user joins an admin-only group', async () => {
    const connection = client(await cookieLogin(h, 'alice@example.com'));
    await connection.start();
    await expect(connection.invoke('JoinUsers')).rejects.toThrow('Forbidden');

    const admin = client(await cookieLogin(h, 'root@example.com'));
    await admin.start();
    await expect(admin.invoke('JoinUsers')).resolves.toBeNull();
  });

  it('refuses a connection without a session before the upgrade', async () => {
    // The official client only says it failed to connect; the raw socket shows the answer was 401.
    await expect(client('warden_session=not-a-session').start()).rejects.toThrow(/failed to connect/);
    await expect(raw('warden_session=not-a-session').opened).rejects.toThrow('HTTP 401');
    await expect(raw('').opened).rejects.toThrow('HTTP 401');
  });

  it('refuses the session cookie from a foreign Origin or with none (cross-site WebSocket hijacking)', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    await expect(raw(cookie, { origin: 'http://evil.example' }).opened).rejects.toThrow('HTTP 403');
    await expect(raw(cookie, {}).opened).rejects.toThrow('HTTP 403');
    await expect(client(cookie, { headers: { Cookie: cookie } }).start()).rejects.toThrow(/failed to connect/);
    const allowed = raw(cookie, { origin });
    await expect(allowed.opened).resolves.toBeUndefined();
  });

  it('accepts a bearer token without an Origin, as the CLI connects', async () => {
    const authorization = await bearerLogin(h, 'alice@example.com');
    const connection = client('', { headers: { Authorization: authorization } });
    await connection.start();
    await expect(connection.invoke('JoinGroups')).resolves.toBeNull();
  });

  it('closes the connection without reconnect when its session logs out', async () => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    const connection = client(cookie);
    const closed = new Promise<Error | undefined>((resolve) => connection.onclose(resolve));
    await connection.start();

    const res = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie, origin } });
    expect(res.statusCode).toBe(200);

    const error = await closed;
    expect(error?.message).toMatch(/signed out/i);
    expect(connection.state).toBe(HubConnectionState.Disconnected);
  });

  it('answers a stream invocation with an error completion', async () => {
    const { socket, opened, next } = raw(await cookieLogin(h, 'alice@example.com'));
    await opened;
    socket.send(`{"protocol":"json","version":1}${RS}`);
    socket.send(`{"type":4,"invocationId":"7","target":"Anything","arguments":[]}${RS}`);
    const [handshake, completion] = await next(2);
    expect(handshake).toBe(`{}${RS}`);
    expect(JSON.parse(completion.slice(0, -1))).toEqual({ type: 3, invocationId: '7', error: 'Streaming hub methods are not supported.' });
  });

  it('accepts several messages in one frame and answers each invocation', async () => {
    const { socket, opened, next } = raw(await cookieLogin(h, 'alice@example.com'));
    await opened;
    socket.send(
      `{"protocol":"json","version":1}${RS}{"type":1,"invocationId":"1","target":"JoinGroups","arguments":[]}${RS}` +
        `{"type":6}${RS}{"type":1,"invocationId":"2","target":"LeaveGroups","arguments":[]}${RS}`,
    );
    const frames = await next(3);
    expect(frames.slice(1).map((f) => JSON.parse(f.slice(0, -1)))).toEqual([
      { type: 3, invocationId: '1', result: null },
      { type: 3, invocationId: '2', result: null },
    ]);
  });
});

describe('malformed frames get a clear answer and never crash the server', () => {
  beforeEach(() => start({ maxMessageBytes: 1024 }));

  const cases: [string, string | Buffer, RegExp][] = [
    ['a wrong protocol', `{"protocol":"messagepack","version":1}${RS}`, /protocol 'messagepack' is not supported/],
    ['a wrong version', `{"protocol":"json","version":2}${RS}`, /does not support version 2/],
    ['a handshake that is not JSON', `hello${RS}`, /not valid JSON/],
    ['a frame without the separator', `{"protocol":"json","version":1}`, /record separator is missing/],
    ['a protocol that is an object with toString', `{"protocol":{"toString":1},"version":1}${RS}`, /Handshake request protocol must be a string/],
    ['a version that is a string', `{"protocol":"json","version":"1"}${RS}`, /Handshake request version must be a number/],
    ['a handshake that is not an object', `null${RS}`, /must be a JSON object/],
    ['a handshake without a version', `{"protocol":"json"}${RS}`, /missing version/],
    ['a binary handshake', Buffer.from('{"protocol":"json","version":1}\u001e'), /Binary frames are not supported/],
  ];
  it.each(cases)('refuses %s at handshake', async (_name, frame, reason) => {
    const { socket, opened, next, closed } = raw(await cookieLogin(h, 'alice@example.com'));
    await opened;
    socket.send(frame);
    const [reply] = await next(1);
    expect(JSON.parse(reply.slice(0, -1)).error).toMatch(reason);
    expect(await closed).toBe(1002);
  });

  const after: [string, string | Buffer, RegExp][] = [
    ['invalid JSON', `{oops${RS}`, /not valid JSON/],
    ['an unknown message type', `{"type":42}${RS}`, /Unknown message type '42'/],
    ['an invocation without a target', `{"type":1,"invocationId":"1","arguments":[]}${RS}`, /Invocation is missing target/],
    ['a type that is an object with toString', `{"type":{"toString":1}}${RS}`, /Message type must be a number/],
    ['a target that is an object with toString', `{"type":1,"target":{"toString":1},"arguments":[]}${RS}`, /Invocation target must be a non-empty string/],
    ['arguments that are not an array', `{"type":1,"target":"JoinGroups","arguments":{"length":1}}${RS}`, /Invocation arguments must be an array/],
    ['a message that is not an object', `[1,2,3]${RS}`, /must be a JSON object/],
    ['a frame split before its separator', `{"type":6}${RS}{"type":1,"target":"Join`, /record separator is missing/],
    ['an empty record from a doubled separator', `{"type":6}${RS}${RS}`, /not valid JSON/],
    ['a second handshake', `{"protocol":"json","version":1}${RS}`, /Message type must be a number/],
    ['a binary frame', Buffer.from([1, 2, 3]), /Binary frames are not supported/],
    ['an oversized message', `{"type":1,"target":"JoinGroups","arguments":["${'x'.repeat(1100)}"]}${RS}`, /too large: at most 1024 bytes/],
  ];
  it.each(after)('closes with an error for %s after the handshake', async (_name, frame, reason) => {
    const cookie = await cookieLogin(h, 'alice@example.com');
    const { socket, opened, next, closed } = raw(cookie);
    await opened;
    socket.send(`{"protocol":"json","version":1}${RS}`);
    await next(1);
    socket.send(frame);
    const [, close] = await next(2);
    expect(JSON.parse(close.slice(0, -1))).toEqual({ type: 7, error: expect.stringMatching(reason), allowReconnect: false });
    await closed;

    // The server is still fine for the next client.
    const connection = client(cookie);
    await connection.start();
    await expect(connection.invoke('JoinGroups')).resolves.toBeNull();
  });
});

describe('the message validator', () => {
  const malformed: [string, string, RegExp][] = [
    ['a type with toString', '{"type":{"toString":1}}', /^Message type must be a number\.$/],
    ['a type that is a string', '{"type":"1"}', /^Message type must be a number\.$/],
    ['a null type', '{"type":null}', /^Message type must be a number\.$/],
    ['an unknown type', '{"type":10}', /^Unknown message type '10'\.$/],
    ['a fractional type', '{"type":1.5}', /^Unknown message type '1\.5'\.$/],
    ['not JSON', '{"type":1', /^Message is not valid JSON\.$/],
    ['a JSON string', '"ping"', /^Message must be a JSON object\.$/],
    ['JSON null', 'null', /^Message must be a JSON object\.$/],
    ['a target with toString', '{"type":1,"target":{"toString":1},"arguments":[]}', /^Invocation target must be a non-empty string/],
    ['an empty target', '{"type":1,"target":"","arguments":[]}', /^Invocation target must be a non-empty string/],
    ['a target over 200 characters', `{"type":1,"target":"${'J'.repeat(201)}","arguments":[]}`, /^Invocation target must be a non-empty string of at most 200/],
    ['an array target', '{"type":1,"target":["JoinGroups"],"arguments":[]}', /^Invocation target must be/],
    ['missing arguments', '{"type":1,"target":"JoinGroups"}', /^Invocation is missing arguments\.$/],
    ['null arguments', '{"type":1,"target":"JoinGroups","arguments":null}', /^Invocation arguments must be an array\.$/],
    ['a numeric invocationId', '{"type":1,"invocationId":1,"target":"JoinGroups","arguments":[]}', /^Invocation invocationId must be a string/],
    ['a stream invocation without an invocationId', '{"type":4,"target":"X","arguments":[]}', /^StreamInvocation is missing invocationId\.$/],
    ['a cancel without an invocationId', '{"type":5}', /^CancelInvocation is missing invocationId\.$/],
    ['a close whose error is an object', '{"type":7,"error":{"toString":1}}', /^Close error must be a string\.$/],
    ['a completion with an array invocationId', '{"type":3,"invocationId":[]}', /^Completion invocationId must be a string/],
    ['an ack with a negative sequenceId', '{"type":8,"sequenceId":-1}', /^Ack sequenceId must be a non-negative integer\.$/],
    ['a sequence without a sequenceId', '{"type":9}', /^Sequence is missing sequenceId\.$/],
    ['a stream item with a null invocationId', '{"type":2,"invocationId":null}', /^StreamItem invocationId must be a string/],
  ];
  it.each(malformed)('refuses %s with a ProtocolError naming the fault', (_name, record, reason) => {
    let thrown: unknown;
    try {
      parseClientMessage(record);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as Error).message).toMatch(reason);
  });

  it('accepts every message kind in the shape the official client sends it', () => {
    const valid = [
      '{"type":1,"invocationId":"0","target":"JoinInstance","arguments":["abc"]}',
      '{"type":1,"target":"LeaveGroups","arguments":[],"streamIds":[]}',
      '{"type":2,"invocationId":"1","item":{"a":1}}',
      '{"type":3,"invocationId":"1","result":null}',
      '{"type":4,"invocationId":"1","target":"Counter","arguments":[1]}',
      '{"type":5,"invocationId":"1"}',
      '{"type":6}',
      '{"type":7}',
      '{"type":7,"error":"bye","allowReconnect":true}',
      '{"type":8,"sequenceId":3}',
      '{"type":9,"sequenceId":1}',
    ];
    for (const record of valid) expect(parseClientMessage(record)).toEqual(JSON.parse(record));
  });

  it('answers a refusal, never an exception, for malformed handshakes', () => {
    expect(checkHandshake('{"protocol":"json","version":1}')).toBeNull();
    expect(checkHandshake('{"protocol":{"toString":1},"version":1}')).toBe('Handshake request protocol must be a string.');
    expect(checkHandshake('{"protocol":"json","version":{"valueOf":1}}')).toBe('Handshake request version must be a number.');
    expect(checkHandshake('{"protocol":"json","version":1.0e1}')).toBe("The server does not support version 10 of the 'json' protocol.");
    expect(checkHandshake('[]')).toBe('Handshake request must be a JSON object.');
    expect(checkHandshake('')).toBe('Handshake request is not valid JSON.');
    // A client's string comes back cut short: the answer stays small whatever was sent.
    expect(checkHandshake(JSON.stringify({ protocol: 'x'.repeat(10_000), version: 1 }))!.length).toBeLessThan(100);
  });
});

describe('caps', () => {
  it('closes a connection that sends more messages than the rate allows', async () => {
    await start({ maxMessagesPerSecond: 50, messageBurst: 20 });
    const { socket, opened, next, closed } = raw(await cookieLogin(h, 'alice@example.com'));
    await opened;
    socket.send(`{"protocol":"json","version":1}${RS}`);
    await next(1);
    socket.send(`{"type":6}${RS}`.repeat(30));
    const [, close] = await next(2);
    expect(JSON.parse(close.slice(0, -1))).toEqual({ type: 7, error: 'Too many messages: at most 50 per second.', allowReconnect: false });
    await closed;
  });

  it('lets ws refuse a frame over twice the hub limit with 1009, and keeps serving', async () => {
    await start({ maxMessageBytes: 1024 });
    const cookie = await cookieLogin(h, 'alice@example.com');
    const { socket, opened, closed } = raw(cookie);
    await opened;
    socket.send(`{"protocol":"json","version":1}${RS}`);
    socket.send(`{"type":1,"target":"JoinGroups","arguments":["${'x'.repeat(4096)}"]}${RS}`);
    expect(await closed).toBe(1009);

    const connection = client(cookie);
    await connection.start();
    await expect(connection.invoke('JoinGroups')).resolves.toBeNull();
  });

  it('closes a text frame that is not UTF-8 with 1007', async () => {
    await start();
    const { socket, opened, closed } = raw(await cookieLogin(h, 'alice@example.com'));
    await opened;
    socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x1e]), { binary: false });
    expect(await closed).toBe(1007);
  });
});

describe('shutdown', () => {
  it('closes promptly with clients attached that reconnect at once', async () => {
    await start();
    const cookie = await cookieLogin(h, 'alice@example.com');
    const clients = [0, 1, 2].map(() => {
      const connection = new HubConnectionBuilder()
        .withUrl(`${baseUrl}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: cookie, Origin: origin } })
        .withAutomaticReconnect([0, 0, 0])
        .configureLogging(LogLevel.None)
        .build();
      opened.push(connection);
      return connection;
    });
    await Promise.all(clients.map((c) => c.start()));

    const started = Date.now();
    await h.app.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(clients.every((c) => c.state !== HubConnectionState.Connected)).toBe(true);
  });
});

describe('limits and keep-alive', () => {
  it('refuses joins beyond the group limit and connections beyond the per-user limit', async () => {
    await start({ maxGroupsPerConnection: 1, maxConnectionsPerUser: 2 });
    const cookie = await cookieLogin(h, 'alice@example.com');
    const first = client(cookie);
    await first.start();
    await first.invoke('JoinGroups');
    await expect(first.invoke('JoinInstances')).rejects.toThrow('Too many groups: at most 1 per connection.');

    await client(cookie).start();
    await expect(client(cookie).start()).rejects.toThrow(/failed to connect/);
    await expect(raw(cookie).opened).rejects.toThrow('HTTP 429');
  });

  it('pings an idle client that stays connected, and closes a client that goes silent', async () => {
    // Timeouts are several ping intervals long, so a busy machine's event-loop stalls do not end either side.
    await start({ pingIntervalMs: 100, clientTimeoutMs: 1000 });
    const cookie = await cookieLogin(h, 'alice@example.com');
    const idle = client(cookie, { keepAliveMs: 100, serverTimeoutMs: 1200 });
    await idle.start();

    const silent = raw(cookie);
    await silent.opened;
    silent.socket.send(`{"protocol":"json","version":1}${RS}`);

    await sleep(2500);
    // The official client pings and hears pings, so it outlives several server timeouts.
    expect(idle.state).toBe(HubConnectionState.Connected);
    await expect(idle.invoke('JoinGroups')).resolves.toBeNull();
    // The raw one heard pings but never answered: it was closed.
    expect(silent.frames).toContain(`{"type":6}${RS}`);
    expect(silent.frames.at(-1)).toMatch(/"type":7.*Client timeout/);
    // Closed gracefully: a close frame with 1000 after the Close message, not a cut TCP link (1006).
    await expect(silent.closed).resolves.toBe(1000);
    expect(silent.socket.readyState).toBe(WebSocket.CLOSED);
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 3000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await sleep(20);
  }
}
