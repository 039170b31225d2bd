import fs from 'node:fs/promises';
import path from 'node:path';
import type { ParsedLogLine } from './engineLogLines';

/** Where reading stopped in each file, kept in the store so a restart neither repeats nor skips lines. */
export interface OffsetStore {
  get(file: string): Promise<number>;
  set(file: string, offset: number): Promise<void>;
}

export interface TailerOptions {
  dir: string;
  /** Which files in dir are logs (e.g. /\.json$/). */
  match: RegExp;
  parse: (line: string) => ParsedLogLine | null;
  offsets: OffsetStore;
  /** Receives each batch of new entries; the offset is saved only after it resolves. */
  onEntries: (entries: ParsedLogLine[], file: string) => Promise<void>;
  /** Largest read per file per pass, so one huge file cannot starve the others. */
  maxReadBytes?: number;
}

/**
 * Reads what engines appended to their JSON log files since the saved offsets. Only whole lines
 * are consumed: a line still being written waits for the next pass. A file that shrank was
 * replaced or truncated, and is read again from its start.
 */
export async function tailOnce(options: TailerOptions): Promise<number> {
  const maxRead = options.maxReadBytes ?? 4 * 1024 * 1024;
  let names: string[];
  try {
    names = (await fs.readdir(options.dir)).filter((name) => options.match.test(name)).sort();
  } catch {
    return 0; // no log folder yet
  }
  let total = 0;
  for (const name of names) {
    const file = path.join(options.dir, name);
    const { size } = await fs.stat(file);
    let offset = await options.offsets.get(file);
    if (size < offset) offset = 0;
    if (size === offset) continue;

    const handle = await fs.open(file, 'r');
    let chunk: Buffer;
    try {
      const length = Math.min(size - offset, maxRead);
      chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, offset);
    } finally {
      await handle.close();
    }
    const lastNewline = chunk.lastIndexOf(0x0a);
    if (lastNewline < 0) continue;
    const complete = chunk.subarray(0, lastNewline + 1).toString('utf8');
    const entries = complete
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map(options.parse)
      .filter((entry): entry is ParsedLogLine => entry !== null);
    if (entries.length > 0) await options.onEntries(entries, file);
    await options.offsets.set(file, offset + lastNewline + 1);
    total += entries.length;
  }
  return total;
}
