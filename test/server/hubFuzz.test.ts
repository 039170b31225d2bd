import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpTransportType, HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import fc from 'fast-check';
import WebSocket from 'ws';
import { freePort, startWarden, type WardenProcess } from '../e2e/wardenProcess';

// The real server (server/main.ts) as a child process, so a crash shows as a process death. One
// well-behaved official client stays joined to a group and must hear every broadcast, while raw
// WebSockets send thousands of generated frames: valid and broken handshakes, fields of every
// wrong type, unknown targets, binary, oversized, split and doubled separators, invalid UTF-8,
// floods of records in one frame. Every bad connection must end with a Close (or a close frame).
//
// More frames: WARDEN_FUZZ_FRAMES=50000 npx jest test/server/hubFuzz.test.ts
// Replay a run: WARDEN_FUZZ_SEED=<the seed it printed>.

const frameTarget = Number(process.env.WARDEN_FUZZ_FRAMES ?? 5000);
const seed = Number(process.env.WARDEN_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Raw connections open at once: well under the per-user limit of hub connections (16). */
const concurrency = 8;
/** A connection that has not been closed this long after its last frame is a hang. */
const closeTimeoutMs = 15_000;
const maxMessageBytes = 64 * 1024;

jest.setTimeout(Math.max(240_000, frameTarget * 40));

const RS = '\u001e';
const admin = { email: 'admin@fuzz.test', password: 'Fuzz-test-1!' };

interface Frame {
  data: string | Buffer;
  binary: boolean;
}
const text = (data: string | Buffer): Frame => ({ data, binary: false });
const handshake = `{"protocol":"json","version":1}${RS}`;

// ---- what the fuzzing connections send ------------------------------------------------------

/** A JSON value, as text, of a type no field expects (or of the expected type at its limits). */
const hostile: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{"toString":1}',
    '{"valueOf":1}',
    '{"toString":{},"valueOf":{},"toJSON":1}',
    '{"__proto__":{"toString":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"length":1,"0":"x"}',
    'null',
    'true',
    '[]',
    '{}',
    '""',
    '0',
    '-0',
    '1e308',
    '-1e-308',
    '12345678901234567890123',
    '[null]',
    '[[]]',
    '"JoinGroups"',
    '"abc"',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string().map((s) => JSON.stringify(s)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  // Huge strings, up to past the frame limit.
  fc.integer({ min: 150, max: 70_000 }).map((n) => JSON.stringify('J'.repeat(n))),
  // Deep nesting.
  fc.integer({ min: 10, max: 20_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
  fc.integer({ min: 10, max: 5_000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

/** Messages the official client could send, as field → JSON text. */
const templates: Record<string, string>[] = [
  { type: '1', invocationId: '"1"', target: '"JoinGroups"', arguments: '[]' },
  { type: '1', invocationId: '"2"', target: '"LeaveGroups"', arguments: '[]' },
  { type: '1', target: '"JoinInstances"', arguments: '[]' },
  { type: '1', invocationId: '"3"', target: '"JoinInstance"', arguments: '["4c2d0a55-0d6a-4f0c-9a51-0b2e6f3f1a11"]' },
  { type: '1', invocationId: '"4"', target: '"JoinLogs"', arguments: '[null]' },
  { type: '1', invocationId: '"5"', target: '"JoinBackups"', arguments: '[]' },
  { type: '1', invocationId: '"6"', target: '"JoinUsers"', arguments: '[]' },
  { type: '4', invocationId: '"7"', target: '"Stream"', arguments: '[]' },
  { type: '3', invocationId: '"8"', result: 'null' },
  { type: '2', invocationId: '"9"', item: '1' },
  { type: '5', invocationId: '"10"' },
  { type: '6' },
  { type: '8', sequenceId: '1' },
  { type: '9', sequenceId: '1' },
];

const record = (fields: [string, string][]) => `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;

/** One record: valid, one field broken, or not a message at all. */
const messageRecord: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...templates).map((t) => record(Object.entries(t))) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...templates), fc.nat(), hostile)
      .map(([t, i, value]) => {
        const fields = Object.entries(t);
        fields[i % fields.length] = [fields[i % fields.length][0], value];
        return record(fields);
      }),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...templates), fc.nat()).map(([t, i]) => {
      const fields = Object.entries(t);
      fields.splice(i % fields.length, 1);
      return record(fields);
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...templates), fc.oneof(fc.constantFrom('__proto__', 'constructor', 'headers', 'streamIds', 'type'), fc.string()), hostile)
      .map(([t, key, value]) => record([...Object.entries(t), [key, value]])),
  },
  // Unknown targets, and known ones with arguments of every wrong type.
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.oneof(fc.string(), fc.string().map((s) => `Join${s}`), fc.constantFrom('JoinInstance', 'LeaveLogs', 'JoinBackups')), fc.array(hostile, { maxLength: 3 }))
      .map(([target, args]) => record([['type', '1'], ['invocationId', '"u"'], ['target', JSON.stringify(target)], ['arguments', `[${args.join(',')}]`]])),
  },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: 20 }).map((type) => `{"type":${type}}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: fc.constant(handshake.slice(0, -1)) },
);

/** One or two frames (a record split across two). */
const messageFrames: fc.Arbitrary<Frame[]> = fc.oneof(
  { weight: 8, arbitrary: fc.array(messageRecord, { minLength: 1, maxLength: 4 }).map((rs) => [text(rs.join(RS) + RS)]) },
  // Many records in one frame, past the message rate.
  { weight: 1, arbitrary: fc.tuple(messageRecord, fc.integer({ min: 10, max: 300 })).map(([r, n]) => [text((r + RS).repeat(n))]) },
  // No separator at the end, a doubled one, or a record split across frames.
  { weight: 1, arbitrary: messageRecord.map((r) => [text(r)]) },
  { weight: 1, arbitrary: messageRecord.map((r) => [text(r + RS + RS)]) },
  { weight: 1, arbitrary: messageRecord.chain((r) => fc.nat(r.length).map((k) => [text(r.slice(0, k)), text(r.slice(k) + RS)])) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => [{ data: Buffer.from(bytes), binary: true }]) },
  // Text frames that are not UTF-8.
  {
    weight: 1,
    arbitrary: fc
      .tuple(messageRecord, fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]))
      .map(([r, bad]) => [text(Buffer.concat([Buffer.from(r.slice(0, 5)), Buffer.from(bad), Buffer.from(r.slice(5) + RS)]))]),
  },
  // Oversized: past the hub's limit, and past twice it (ws's own limit).
  {
    weight: 1,
    arbitrary: fc.integer({ min: maxMessageBytes + 1, max: maxMessageBytes * 2 + 8 * 1024 }).map((size) => {
      const head = '{"type":1,"target":"JoinGroups","arguments":["';
      const tail = `"]}${RS}`;
      return [text(head + 'x'.repeat(size - head.length - tail.length) + tail)];
    }),
  },
  { weight: 1, arbitrary: fc.constant<Frame[]>([text('')]) },
);

/** What a connection opens with: mostly the right handshake, sometimes a broken one or none. */
const openingFrames: fc.Arbitrary<Frame[]> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Frame[]>([text(handshake)]) },
  { weight: 1, arbitrary: fc.array(messageRecord, { minLength: 1, maxLength: 3 }).map((rs) => [text(handshake + rs.join(RS) + RS)]) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.option(hostile, { nil: '"json"' }), fc.option(hostile, { nil: '1' }), fc.option(fc.tuple(fc.string(), hostile)))
      .map(([protocol, version, extra]) => [
        text(record([['protocol', protocol], ['version', version], ...(extra ? [extra] : [])]) + RS),
      ]),
  },
  { weight: 1, arbitrary: fc.constantFrom(handshake.slice(0, -1), `${handshake}${RS}`, `["json",1]${RS}`, RS).map((f) => [text(f)]) },
  { weight: 1, arbitrary: messageFrames },
);

const connectionScript: fc.Arbitrary<Frame[]> = fc
  .tuple(openingFrames, fc.array(messageFrames, { maxLength: 6 }))
  .map(([opening, rest]) => [...opening, ...rest.flat()]);

// ---- the server and the clients -------------------------------------------------------------

let dataDir: string;
let warden: WardenProcess;
let deaths = 0;
const guardLines: string[] = [];

async function signIn(): Promise<string> {
  const res = await fetch(`${warden.url}/auth/login?useCookies=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: warden.url },
    body: JSON.stringify(admin),
  });
  expect(res.status).toBe(200);
  return res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('warden_session='))!;
}

async function debug(cookie: string, body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${warden.url}/debug`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: warden.url, cookie },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function broadcast(cookie: string, textToSend: string) {
  const res = await debug(cookie, { action: 'broadcast', event: 'DebugMessage', payload: { text: textToSend }, to: 'all' });
  expect(res.status).toBe(202);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(50);
  }
}

/** How one fuzzing connection ended. */
type Outcome = { kind: 'refused' | 'hang' | 'abnormal' | 'close message' | 'handshake error' | 'close frame'; reason: string };

/** A reason with the client's own values taken out, so the summary groups alike closes. */
const generalize = (reason: string) => reason.replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N');

/** Sends one script on a fresh connection, then a client Close, and reports how the connection ended. */
function runConnection(cookie: string, frames: Frame[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${warden.url.replace('http', 'ws')}/uihub`, { headers: { cookie, origin: warden.url } });
    const received: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    socket.on('message', (data) => received.push(data.toString()));
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (req, res) => {
      req.destroy();
      settle({ kind: 'refused', reason: `HTTP ${res.statusCode}` });
    });
    socket.once('close', (code) => {
      const records = received.flatMap((frame) => frame.split(RS).filter(Boolean)).map((r) => JSON.parse(r) as Record<string, unknown>);
      const close = records.find((r) => r.type === 7);
      const refusal = records.find((r) => typeof r.error === 'string' && r.type === undefined);
      if (close) {
        // The hub's Close for bad input: a reason, and no reconnect.
        if (typeof close.error !== 'string' || close.allowReconnect !== false) return settle({ kind: 'abnormal', reason: `bad Close ${JSON.stringify(close)}` });
        return settle({ kind: 'close message', reason: generalize(close.error) });
      }
      if (refusal) return settle({ kind: 'handshake error', reason: generalize(refusal.error as string) });
      if (code === 1006) return settle({ kind: 'abnormal', reason: 'closed without a close frame (1006)' });
      settle({ kind: 'close frame', reason: code === 1000 ? 'after the client Close (1000)' : `close frame ${code}` });
    });
    socket.once('open', () => {
      for (const frame of frames) socket.send(frame.data, { binary: frame.binary }, () => undefined);
      socket.send(`{"type":7}${RS}`, () => undefined);
      timer = setTimeout(() => {
        socket.terminate();
        settle({ kind: 'hang', reason: 'not closed in time' });
      }, closeTimeoutMs);
    });
  });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-hubfuzz-'));
  warden = await startWarden(
    { WARDEN_DATA_DIR: dataDir, WARDEN_ADMIN_EMAIL: admin.email, WARDEN_ADMIN_PASSWORD: admin.password, WARDEN_LOG_LEVEL: 'warn' },
    await freePort(),
  );
  warden.child.once('exit', () => deaths++);
  // The process-level guard logs what escaped every handler: the fuzz must never need it.
  const watch = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (/Uncaught exception|Unhandled promise rejection/.test(line)) guardLines.push(line);
  };
  warden.child.stdout!.on('data', watch);
  warden.child.stderr!.on('data', watch);
});

afterAll(async () => {
  await warden?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it(`survives ${frameTarget} fuzzed hub frames while a good client keeps receiving every event`, async () => {
  const goodCookie = await signIn();
  const fuzzCookie = await signIn();

  const good: HubConnection = new HubConnectionBuilder()
    .withUrl(`${warden.url}/uihub`, { skipNegotiation: true, transport: HttpTransportType.WebSockets, headers: { Cookie: goodCookie, Origin: warden.url } })
    .configureLogging(LogLevel.None)
    .build();
  const heard: string[] = [];
  let goodClosed: Error | undefined | null = null;
  good.on('DebugMessage', (payload: { text: string }) => heard.push(payload.text));
  good.onclose((error) => (goodClosed = error ?? new Error('closed')));
  await good.start();
  await expect(good.invoke('JoinGroups')).resolves.toBeNull();

  // Broadcasts throughout the fuzz: the good client must hear each one.
  const sent: string[] = [];
  let fuzzing = true;
  const broadcasting = (async () => {
    for (let i = 0; fuzzing && deaths === 0; i++) {
      sent.push(`during ${i}`);
      await broadcast(goodCookie, `during ${i}`);
      await sleep(250);
    }
  })().catch((error: unknown) => error);

  const outcomes: Outcome[] = [];
  let framesSent = 0;
  let batch = 0;
  const scripts: Frame[][] = [];
  const nextScript = () => {
    if (scripts.length === 0) scripts.push(...fc.sample(connectionScript, { seed: seed + batch++, numRuns: 50 }));
    return scripts.shift()!;
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (framesSent < frameTarget && deaths === 0) {
        const frames = nextScript();
        framesSent += frames.length;
        outcomes.push(await runConnection(fuzzCookie, frames));
      }
    }),
  );
  fuzzing = false;
  const broadcastFailure = await broadcasting;

  const byKind = new Map<string, number>();
  const byReason = new Map<string, number>();
  for (const { kind, reason } of outcomes) {
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    byReason.set(`${kind}: ${reason}`, (byReason.get(`${kind}: ${reason}`) ?? 0) + 1);
  }
  const list = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`);
  console.log(
    `hub fuzz (seed ${seed}): ${framesSent} frames sent over ${outcomes.length} connections; closes: ${list(byKind).join(', ')}; deaths: ${deaths}\n` +
      list(byReason)
        .map((line) => `  ${line}`)
        .join('\n'),
  );

  expect(deaths).toBe(0);
  expect(guardLines).toEqual([]);
  expect(broadcastFailure).toBeUndefined();
  expect(framesSent).toBeGreaterThanOrEqual(frameTarget);
  expect(outcomes.filter((o) => o.kind === 'hang' || o.kind === 'abnormal' || o.kind === 'refused')).toEqual([]);
  // A frame that reached a bug of ours is closed as "unexpected": validation must catch every one first.
  expect(outcomes.filter((o) => /unexpected error/i.test(o.reason))).toEqual([]);
  // The fuzz reached each kind of ending, not only one.
  for (const kind of ['close message', 'handshake error', 'close frame']) expect(byKind.get(kind) ?? 0).toBeGreaterThan(0);

  // After the fuzz: the same client, never reconnected, hears every broadcast, during and after.
  for (let i = 0; i < 20; i++) {
    sent.push(`after ${i}`);
    await broadcast(goodCookie, `after ${i}`);
  }
  await until('the good client to hear every broadcast', () => heard.length >= sent.length);
  expect(goodClosed).toBeNull();
  expect(good.state).toBe(HubConnectionState.Connected);
  expect(heard).toEqual(sent);

  // Every fuzzing connection is gone from the hub: only the good client remains.
  await until('the hub to drop the fuzzing connections', async () => (await debug(goodCookie, { action: 'info' })).json.hubConnections === 1);
  await good.stop();
});
