import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import cliProgress from 'cli-progress';
import type { DownloadUrl } from '../contracts/backups';
import { apiErrorOf, reach, type ApiClient } from './api';
import { CliError } from './errors';
import { formatBytes } from './output';

export interface Downloaded {
  file: string;
  bytes: number;
  sha256: string;
  /** Bytes of an earlier partial download that were kept (0 for a fresh download). */
  resumedFrom: number;
}

/**
 * The signed link, pointed at the server this client talks to: the link carries the server's public
 * URL, which may be a name only browsers resolve; the path and signature are what matter.
 */
function linkOnServer(api: ApiClient, signed: string): URL {
  const link = new URL(signed, `${api.baseUrl}/`);
  const base = new URL(api.baseUrl);
  if (link.origin !== base.origin) {
    link.protocol = base.protocol;
    link.host = base.host;
  }
  return link;
}

/** Hashes what is already in the partial file, so a resumed download is checked whole. */
async function hashOf(file: string): Promise<Hash> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), new Transform({ transform: (chunk, _enc, done) => (hash.update(chunk), done()) }));
  return hash;
}

const sizeOf = (file: string) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

async function open(link: URL, from: number, server: string): Promise<Response> {
  const headers: Record<string, string> = from > 0 ? { range: `bytes=${from}-` } : {};
  return reach(link, { headers }, server);
}

/**
 * Downloads a backup through its signed link into `<file>.partial`, resuming what an earlier attempt
 * left there (Range), checks the whole file against X-Checksum-Sha256 and only then renames it to
 * `file`. A mismatch removes the partial file and fails.
 */
export async function downloadBackup(
  api: ApiClient,
  instanceId: string,
  backupId: string,
  file: string,
  options: { progress: boolean },
): Promise<Downloaded> {
  const { url } = await api.get<DownloadUrl>(`/instances/${encodeURIComponent(instanceId)}/backups/url/${encodeURIComponent(backupId)}`);
  const link = linkOnServer(api, url);
  const partial = `${file}.partial`;
  let from = sizeOf(partial);
  let response = await open(link, from, api.baseUrl);
  if (response.status === 416) {
    // The partial file is not a prefix of this backup (longer than it): start over.
    await response.body?.cancel();
    fs.rmSync(partial, { force: true });
    from = 0;
    response = await open(link, 0, api.baseUrl);
  }
  if (!response.ok) throw await apiErrorOf(response);
  if (response.status === 200 && from > 0) from = 0; // The server sent the whole file: the partial one is replaced.
  const expected = response.headers.get('x-checksum-sha256');
  if (!expected) throw new CliError('The server sent no X-Checksum-Sha256 header: the download cannot be checked.');
  const total = from + Number(response.headers.get('content-length') ?? 0);

  const hash = from > 0 ? await hashOf(partial) : createHash('sha256');
  let done = from;
  const bar = options.progress
    ? new cliProgress.SingleBar(
        { format: 'Downloading [{bar}] {percentage}% | {done} of {size} | ETA {eta_formatted}', hideCursor: true, stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(total, done, { done: formatBytes(done), size: formatBytes(total) });
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      hash.update(chunk);
      done += chunk.length;
      bar?.update(done, { done: formatBytes(done) });
      next(null, chunk);
    },
  });
  try {
    if (!response.body) throw new CliError('The server sent no content.');
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), meter, fs.createWriteStream(partial, { flags: from > 0 ? 'a' : 'w', mode: 0o600 }));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`The download broke off after ${formatBytes(done)} (run the same command again to resume): ${(error as Error).message}`);
  } finally {
    bar?.stop();
  }
  const actual = hash.digest('hex');
  if (actual !== expected) {
    fs.rmSync(partial, { force: true });
    throw new CliError(`Checksum mismatch: the file hashes to ${actual}, the server recorded ${expected}. The partial file was removed; download again.`);
  }
  fs.renameSync(partial, file);
  return { file, bytes: done, sha256: actual, resumedFrom: from };
}
