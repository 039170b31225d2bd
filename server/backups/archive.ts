import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
 * A tar stream of the parts. It fails (instead of ending) when tar does, so a consumer writing it to
 * storage never completes a half archive. Exit 1 (a log file grew while read) is accepted.
 */
export function pack(source: PackSource): Readable {
  const args = ['-cf', '-', '--warning=no-file-changed'];
  for (const part of source.parts) if (part.paths.length > 0) args.push('-C', part.dir, ...part.paths);
  const child = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new PassThrough();
  // tar may fail before anyone reads (or while a consumer is still getting ready): the consumer's
  // pipeline sees the error; an unobserved one must not take the server down.
  out.on('error', () => undefined);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.pipe(out, { end: false });
  let stdoutEnded = false;
  let exit: number | null | undefined;
  const settle = () => {
    if (!stdoutEnded || exit === undefined) return;
    if (exit === 0 || exit === 1) out.end();
    else out.destroy(new Error(`tar failed (exit ${exit}): ${stderr.trim().split('\n').slice(-3).join(' ')}`));
  };
  child.stdout.on('end', () => {
    stdoutEnded = true;
    settle();
  });
  child.on('error', (error) => out.destroy(error));
  child.on('close', (code) => {
    exit = code;
    settle();
  });
  out.on('close', () => {
    if (exit === undefined) child.kill('SIGTERM');
  });
  return out;
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
