import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runToFile } from '../engines/processRunner';
import { HashingCounter } from './storage';

// Archives are plain tar (GNU tar from the base system): an operator can open a downloaded backup
// with the tools they already have. tar runs as the server's user, which can read every instance.

export interface PackSource {
  /** Folders and the paths under each to pack, in order. */
  parts: { dir: string; paths: string[] }[];
}

/** Bytes the parts hold on disk (for a percentage while packing). */
export function sizeOnDisk(parts: PackSource['parts']): number {
  let total = 0;
  const walk = (target: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(target);
    } catch {
      return;
    }
    if (stat.isDirectory()) for (const name of fs.readdirSync(target)) walk(path.join(target, name));
    else total += stat.size;
  };
  for (const part of parts) for (const relative of part.paths) walk(path.join(part.dir, relative));
  return total;
}

/**
 * Packs the parts into `file`, which must not exist yet: tar writes it itself, so the archive's bytes
 * do not pass through the server; `onBytes` sees the file grow. Exit 1 (a log file grew while read)
 * is accepted. Answers the archive's size.
 */
export function packInto(source: PackSource, file: string, onBytes?: (bytes: number) => void): Promise<number> {
  const args = ['-cf', '-', '--warning=no-file-changed'];
  for (const part of source.parts) if (part.paths.length > 0) args.push('-C', part.dir, ...part.paths);
  return runToFile(null, 'tar', args, file, { onBytes, okExitCodes: [1] });
}

/**
 * Unpacks an archive stream into `dir`, hashing it on the way; answers the SHA-256 of what was
 * read, so the caller can refuse a backup whose bytes changed since they were written.
 */
export async function unpack(archive: Readable, dir: string): Promise<string> {
  const child = spawn('tar', ['-xf', '-', '-C', dir, '--no-same-owner'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  // Awaited only after the pipeline: a tar that fails to start meanwhile must not count as unhandled.
  exited.catch(() => undefined);
  const counter = new HashingCounter();
  // tar may exit once it has read the end-of-archive blocks, and node then destroys its stdin before
  // the last write or end is acknowledged: feed it without letting that end the pipeline, so every byte
  // is still hashed, and let tar's exit code say whether the unpack worked.
  child.stdin.on('error', () => undefined);
  const feed = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (child.stdin.destroyed) callback();
      else child.stdin.write(chunk, () => callback());
    },
    final(callback) {
      child.stdin.end();
      callback();
    },
  });
  try {
    await pipeline(archive, counter, feed);
  } catch (error) {
    child.kill('SIGTERM');
    await exited.catch(() => undefined);
    throw new Error(`The archive could not be unpacked: ${stderr.trim() || (error as Error).message}`, { cause: error });
  }
  const code = await exited;
  if (code !== 0) throw new Error(`The archive could not be unpacked (tar exit ${code}): ${stderr.trim()}`);
  return counter.digest();
}

/** SHA-256 of a whole stream. */
export async function digestOf(stream: Readable): Promise<string> {
  const counter = new HashingCounter();
  counter.resume();
  await pipeline(stream, counter);
  return counter.digest();
}
