import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEtcdZapLine, type ParsedLogLine } from '../../server/logs/engineLogLines';
import { tailOnce, type OffsetStore } from '../../server/logs/tailer';

const line = (msg: string, level = 'info') => JSON.stringify({ level, ts: '2026-11-22T04:00:00.000Z', msg }) + '\n';

function memoryOffsets(): OffsetStore & { saved: Map<string, number> } {
  const saved = new Map<string, number>();
  return { saved, get: async (file) => saved.get(file) ?? 0, set: async (file, offset) => void saved.set(file, offset) };
}

let dir: string;
let received: ParsedLogLine[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-tail-'));
  received = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const options = (offsets: OffsetStore, onEntries = async (entries: ParsedLogLine[]) => void received.push(...entries)) => ({
  dir,
  match: /\.log$/,
  parse: parseEtcdZapLine,
  offsets,
  onEntries,
});

test('reads appended whole lines once, and leaves a half-written line for the next pass', async () => {
  const file = path.join(dir, 'etcd.log');
  fs.writeFileSync(file, line('one') + line('two', 'warn') + '{"level":"info","ts":"2026-11-22T04:00:00Z","ms');
  const offsets = memoryOffsets();

  expect(await tailOnce(options(offsets))).toBe(2);
  expect(received.map((e) => [e.message, e.level])).toEqual([['one', 'information'], ['two', 'warning']]);
  expect(await tailOnce(options(offsets))).toBe(0);

  fs.appendFileSync(file, 'g":"three"}\n' + 'not json\n');
  expect(await tailOnce(options(offsets))).toBe(1);
  expect(received.map((e) => e.message)).toEqual(['one', 'two', 'three']);
});

test('a restart with the saved offsets neither repeats nor loses lines', async () => {
  const file = path.join(dir, 'etcd.log');
  fs.writeFileSync(file, line('before'));
  const offsets = memoryOffsets();
  await tailOnce(options(offsets));
  fs.appendFileSync(file, line('while down'));

  // A new tailer (a restarted server) with the same offsets.
  const after: ParsedLogLine[] = [];
  await tailOnce(options(offsets, async (entries) => void after.push(...entries)));
  expect(after.map((e) => e.message)).toEqual(['while down']);
});

test('the offset is not saved when storing the entries fails, so they are read again', async () => {
  fs.writeFileSync(path.join(dir, 'etcd.log'), line('precious'));
  const offsets = memoryOffsets();
  await expect(tailOnce(options(offsets, async () => Promise.reject(new Error('disk full'))))).rejects.toThrow('disk full');
  expect(await tailOnce(options(offsets))).toBe(1);
  expect(received.map((e) => e.message)).toEqual(['precious']);
});

test('a truncated or replaced file is read from its start; rotated files are each read', async () => {
  const file = path.join(dir, 'a.log');
  fs.writeFileSync(file, line('old one') + line('old two'));
  const offsets = memoryOffsets();
  await tailOnce(options(offsets));
  fs.writeFileSync(file, line('new'));
  fs.writeFileSync(path.join(dir, 'b.log'), line('rotated'));
  fs.writeFileSync(path.join(dir, 'ignored.txt'), line('not a log'));
  await tailOnce(options(offsets));
  expect(received.map((e) => e.message)).toEqual(['old one', 'old two', 'new', 'rotated']);
});

test('a missing folder is not an error', async () => {
  expect(await tailOnce({ ...options(memoryOffsets()), dir: path.join(dir, 'nope') })).toBe(0);
});
