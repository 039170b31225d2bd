import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { packInto } from '../../../server/backups/archive';
import { LocalDirectoryStorage, VerifyingStream } from '../../../server/backups/storage';

// Backup storage on a real folder: what a finished write leaves, what a cut-off write must not
// leave, and the stream that refuses to hand out a file whose bytes changed.

let root: string;
let storage: LocalDirectoryStorage;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'warden-storage-'));
  storage = new LocalDirectoryStorage(root);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
/** Every file under the root, relative, sorted. */
const filesUnder = (dir: string) =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

/** Chunks of `data`, the way a stored file is read. */
function chunked(data: Buffer, size = 16 * 1024): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += size) chunks.push(data.subarray(offset, offset + size));
  return chunks;
}

/** A writer that makes the file it is handed with `data`, as a tool would. */
const writing = (data: Buffer | string) => (file: string) => fs.promises.writeFile(file, data, { flag: 'wx' });

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('LocalDirectoryStorage', () => {
  it('stores the file the writer makes under the key and answers its size and sha256, read back from it', async () => {
    // Larger than one read for the hash.
    const data = randomBytes(3 * 1024 * 1024 + 123);
    let handed = '';
    const stored = await storage.put('instance-1/backup-1.tar', (file) => {
      handed = file;
      return writing(data)(file);
    });
    expect(handed).toBe(path.join(root, 'instance-1', '.partial-backup-1.tar'));
    expect(stored).toEqual({ key: 'instance-1/backup-1.tar', sizeBytes: data.length, sha256: sha256(data) });
    expect(fs.readFileSync(path.join(root, 'instance-1', 'backup-1.tar')).equals(data)).toBe(true);
    expect(filesUnder(root)).toEqual(['instance-1/backup-1.tar']);
    expect(await storage.size('instance-1/backup-1.tar')).toBe(data.length);
    expect(await storage.exists('instance-1/backup-1.tar')).toBe(true);
  });

  it('leaves neither the key nor a partial file when the writer fails midway', async () => {
    let during: string[] = [];
    const cut = async (file: string) => {
      await writing(randomBytes(64 * 1024))(file);
      during = filesUnder(root);
      throw new Error('tar failed (exit 2): Cannot read');
    };
    await expect(storage.put('instance-1/cut.tar', cut)).rejects.toThrow('tar failed (exit 2)');
    expect(during).toEqual(['instance-1/.partial-cut.tar']);
    expect(await storage.exists('instance-1/cut.tar')).toBe(false);
    expect(filesUnder(root)).toEqual([]);
  });

  it('fails a write whose tar cannot read a part, without leaving a file', async () => {
    await expect(storage.put('i/b.tar', (file) => packInto({ parts: [{ dir: root, paths: ['no-such-file'] }] }, file))).rejects.toThrow(/tar failed/);
    expect(filesUnder(root)).toEqual([]);
  });

  it('stores the archive tar writes itself: it holds the parts that name paths, its size and sha256 are the stored file\'s', async () => {
    const parts = path.join(root, 'parts');
    fs.mkdirSync(path.join(parts, 'databases'), { recursive: true });
    fs.writeFileSync(path.join(parts, 'manifest.json'), '{}');
    fs.writeFileSync(path.join(parts, 'databases', '1.dump'), randomBytes(300_000));
    const sizes: number[] = [];
    const stored = await storage.put('i/c.tar', (file) =>
      packInto({ parts: [{ dir: parts, paths: ['databases', 'manifest.json'] }, { dir: parts, paths: [] }] }, file, (bytes) => sizes.push(bytes)),
    );
    const archive = fs.readFileSync(path.join(root, 'i', 'c.tar'));
    expect(stored).toEqual({ key: 'i/c.tar', sizeBytes: archive.length, sha256: sha256(archive) });
    expect(sizes.at(-1)).toBe(archive.length);
    expect(execFileSync('tar', ['-tf', path.join(root, 'i', 'c.tar')]).toString().split('\n').filter(Boolean).sort()).toEqual([
      'databases/',
      'databases/1.dump',
      'manifest.json',
    ]);
  });

  it('sweeps partial files a crash left behind, counts them and keeps finished ones', async () => {
    await storage.put('instance-1/kept.tar', writing('whole'));
    fs.writeFileSync(path.join(root, 'instance-1', '.partial-x.tar'), 'half');
    fs.mkdirSync(path.join(root, 'instance-2'));
    fs.writeFileSync(path.join(root, 'instance-2', '.partial-y.tar'), 'half');
    expect(await storage.sweep()).toBe(2);
    expect(filesUnder(root)).toEqual(['instance-1/kept.tar']);
    expect(await storage.sweep()).toBe(0);
  });

  it('sweeps an empty or missing folder without failing', async () => {
    expect(await storage.sweep()).toBe(0);
    expect(await new LocalDirectoryStorage(path.join(root, 'never-made')).sweep()).toBe(0);
  });

  it.each(['../escape.tar', 'instance-1/../../escape.tar', '.hidden.tar', 'instance-1/.partial-x.tar', '/etc/passwd', ''])(
    'refuses the key %j',
    async (key) => {
      await expect(storage.put(key, writing('x'))).rejects.toThrow('Invalid storage key');
      expect(() => storage.read(key)).toThrow('Invalid storage key');
      await expect(storage.delete(key)).rejects.toThrow('Invalid storage key');
      expect(fs.existsSync(path.join(path.dirname(root), 'escape.tar'))).toBe(false);
    },
  );

  it('reads an inclusive byte range, or the whole file', async () => {
    const data = Buffer.from('0123456789abcdefghij');
    await storage.put('i/r.tar', writing(data));
    expect((await readAll(storage.read('i/r.tar', { start: 3, end: 7 }))).toString()).toBe('34567');
    expect((await readAll(storage.read('i/r.tar', { start: 19, end: 19 }))).toString()).toBe('j');
    expect((await readAll(storage.read('i/r.tar'))).equals(data)).toBe(true);
  });

  it('deletes a key, and deleting a missing key is no error', async () => {
    await storage.put('i/d.tar', writing('x'));
    await storage.delete('i/d.tar');
    expect(await storage.exists('i/d.tar')).toBe(false);
    await expect(storage.delete('i/d.tar')).resolves.toBeUndefined();
  });
});

describe('VerifyingStream', () => {
  /** Pipes chunks through a VerifyingStream and records what a reader got before the end. */
  async function verify(chunks: Buffer[], expected: string) {
    const delivered: Buffer[] = [];
    const mismatches: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        delivered.push(chunk);
        callback();
      },
    });
    const outcome = await pipeline(Readable.from(chunks), new VerifyingStream(expected, (actual) => mismatches.push(actual)), sink).then(
      () => null,
      (error: Error) => error,
    );
    return { delivered: Buffer.concat(delivered), error: outcome, mismatches };
  }

  it('passes good data through whole', async () => {
    const data = randomBytes(100_000);
    const result = await verify(chunked(data), sha256(data));
    expect(result.error).toBeNull();
    expect(result.delivered.equals(data)).toBe(true);
    expect(result.mismatches).toEqual([]);
  });

  it('fails before the last chunk when one byte changed, and reports the actual digest', async () => {
    const data = randomBytes(100_000);
    const flipped = Buffer.from(data);
    flipped[1234] ^= 0xff;
    const chunks = chunked(flipped);
    const result = await verify(chunks, sha256(data));
    expect(result.error?.message).toMatch(/Checksum mismatch/);
    expect(result.mismatches).toEqual([sha256(flipped)]);
    // The reader never gets the whole file: the last chunk is held back.
    const last = chunks.at(-1)!;
    expect(result.delivered.length).toBe(flipped.length - last.length);
  });

  it('delivers nothing of a one-chunk file that does not match', async () => {
    const data = Buffer.from('small archive');
    const result = await verify([data], sha256(Buffer.from('other archive')));
    expect(result.error).not.toBeNull();
    expect(result.delivered.length).toBe(0);
  });
});
