import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What a finished write left in storage. */
export interface StoredObject {
  key: string;
  sizeBytes: number;
  sha256: string;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * Where backup files live (DESIGN §3): a local folder now, S3-compatible storage later. A key is
 * never visible half-written: `put` answers only once the object is complete and durable.
 */
export interface BackupStorage {
  /**
   * Stores under `key` the file `write` makes at the path it is handed (which does not exist yet), so a
   * tool (tar) writes the object itself and its bytes do not pass through the server; the object's
   * size and sha256 are read back from what was written.
   */
  put(key: string, write: (file: string) => Promise<unknown>): Promise<StoredObject>;
  /** The bytes of `key` (or a range of them), in chunks of `readChunkBytes`. */
  read(key: string, range?: ByteRange): Readable;
  size(key: string): Promise<number>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Removes what writes cut short (a crash) left behind; answers how many were removed. */
  sweep(): Promise<number>;
}

/** Words an operator can act on for a failed write (a full disk above all). */
export function storageProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return 'The backup storage is full (no space left on device): free space or delete old backups.';
  if (code === 'EDQUOT') return 'The backup storage quota is exhausted: free space or delete old backups.';
  return error instanceof Error ? error.message : String(error);
}

const partialPrefix = '.partial-';

/** The size of each chunk `read` delivers: a file of one chunk is all held back by VerifyingStream. */
export const readChunkBytes = 64 * 1024;

/** Reads for the hash of a stored file: large, as the file is read once, whole, from the page cache. */
const hashChunkBytes = 1024 * 1024;

/** Counts and hashes what flows through it. */
export class HashingCounter extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.push(chunk);
    callback();
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

async function fsyncPath(target: string) {
  const handle = await fs.promises.open(target, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Backups as files under one folder (`<dataDir>/backups`). A write goes to `.partial-<name>` beside
 * its key, is fsynced, renamed into place, and the folder is fsynced, in that order: after a crash
 * a key either holds the whole file or does not exist, and `sweep` removes the partial files.
 */
export class LocalDirectoryStorage implements BackupStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    const resolved = path.resolve(this.root, key);
    if (!resolved.startsWith(`${path.resolve(this.root)}${path.sep}`) || key.split('/').some((part) => part.startsWith('.'))) {
      throw new Error(`Invalid storage key ${key}.`);
    }
    return resolved;
  }

  async put(key: string, write: (file: string) => Promise<unknown>): Promise<StoredObject> {
    const target = this.pathOf(key);
    const folder = path.dirname(target);
    await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
    const partial = path.join(folder, `${partialPrefix}${path.basename(target)}`);
    const counter = new HashingCounter();
    try {
      await write(partial);
      // The file is hashed from the page cache while the kernel writes it to disk. fsync works on the
      // file, not the descriptor: the data is on disk before the name is.
      counter.resume();
      await Promise.all([pipeline(fs.createReadStream(partial, { highWaterMark: hashChunkBytes }), counter), fsyncPath(partial)]);
      await fs.promises.rename(partial, target);
      await fsyncPath(folder);
    } catch (error) {
      await fs.promises.rm(partial, { force: true });
      throw new Error(storageProblem(error), { cause: error });
    }
    return { key, sizeBytes: counter.bytes, sha256: counter.digest() };
  }

  read(key: string, range?: ByteRange): Readable {
    return fs.createReadStream(this.pathOf(key), { highWaterMark: readChunkBytes, ...(range && { start: range.start, end: range.end }) });
  }

  async size(key: string): Promise<number> {
    return (await fs.promises.stat(this.pathOf(key))).size;
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.promises.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async sweep(): Promise<number> {
    let removed = 0;
    const walk = async (folder: string) => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(folder, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const full = path.join(folder, entry.name);
        if (entry.name.startsWith(partialPrefix)) {
          await fs.promises.rm(full, { recursive: true, force: true });
          removed += 1;
        } else if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(full);
      }
    };
    await walk(this.root);
    return removed;
  }
}

/**
 * Passes a stored file through while hashing it and holds back the last chunk until the end: when
 * the digest differs from `expected`, the stream fails instead of delivering it whole, so a reader
 * (a download) is cut off rather than handed corrupt bytes as if they were good.
 */
export class VerifyingStream extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | null = null;

  constructor(
    private readonly expected: string,
    private readonly onMismatch: (actual: string) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.hash.update(chunk);
    if (this.held) this.push(this.held);
    this.held = chunk;
    callback();
  }

  override _flush(callback: (error?: Error | null) => void) {
    const actual = this.hash.digest('hex');
    if (actual !== this.expected) {
      this.onMismatch(actual);
      callback(new Error(`Checksum mismatch: the stored file hashes to ${actual}, not ${this.expected}.`));
      return;
    }
    if (this.held) this.push(this.held);
    callback();
  }
}
