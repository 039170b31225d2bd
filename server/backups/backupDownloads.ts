import { isPhysicalFormat } from '../../contracts/backupValues';
import { physicalOnly } from './backupContext';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EngineError } from '../engines/processRunner';
import type { DownloadUrl } from '../../contracts/backups';
import { downloadUrlLifetimeMs } from '../../contracts/backupValues';
import { findBackupRow } from '../db/backups';
import { HttpProblem } from '../http/problems';
import { digestOf } from './archive';
import type { BackupContext } from './backupContext';
import { parseRange, UrlSigner } from './signedUrls';
import { readChunkBytes, VerifyingStream } from './storage';

/** A download the route streams: headers decided, body verified while it flows. */
export interface DownloadPlan {
  status: 200 | 206;
  headers: Record<string, string>;
  body: Readable;
}

/** Backup downloads: short-lived signed links, served with ranges and checked against the backup's checksum. */
export class BackupDownloads {
  private readonly signer: UrlSigner;

  constructor(private readonly ctx: BackupContext) {
    this.signer = new UrlSigner(ctx.deps.config.dataDir, ctx.deps.config.databaseUrl ? ctx.db : undefined);
  }

  async downloadUrl(instanceId: string, backupId: string): Promise<DownloadUrl> {
    const row = await this.ctx.requireBackup(instanceId, backupId);
    if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: only a succeeded backup can be downloaded.`);
    const expiresAt = new Date(this.ctx.now().getTime() + downloadUrlLifetimeMs);
    const { expires, signature } = await this.signer.sign(backupId, expiresAt);
    const base = this.ctx.deps.config.publicUrl;
    return { url: `${base}/downloads/backups/${backupId}?expires=${expires}&signature=${signature}`, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Brings a backup kept on another host (its agent's API at `hostApiUrl`) into this host's storage,
   * through the signed download that host serves, and checks it against the backup's checksum.
   * Answers how to remove the copy once used.
   */
  async fetchFromHost(backupId: string, hostApiUrl: string, headers: Record<string, string>): Promise<() => Promise<void>> {
    const row = await findBackupRow(this.ctx.db, backupId);
    if (!row?.storage_key || !row.sha256) throw new EngineError('The backup no longer exists.');
    const { expires, signature } = await this.signer.sign(backupId, new Date(this.ctx.now().getTime() + downloadUrlLifetimeMs));
    const answer = await fetch(new URL(`/downloads/backups/${backupId}?expires=${expires}&signature=${signature}`, hostApiUrl), { headers }).catch(() => null);
    if (answer?.status !== 200 || !answer.body) {
      throw new EngineError(`The host that keeps the backup did not hand it over (${answer ? `HTTP ${answer.status}` : 'no answer'} from ${hostApiUrl}): try again once it is online.`);
    }
    const body = answer.body;
    const { storage } = this.ctx.deps;
    const key = row.storage_key;
    const stored = await storage.put(key, (file) => pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), fs.createWriteStream(file, { mode: 0o600 })));
    if (stored.sha256 !== row.sha256) {
      await storage.delete(key);
      throw new EngineError('The backup arrived from its host damaged (its checksum differs): try again.');
    }
    return () => storage.delete(key);
  }

  /** Checks a signed link and plans the answer; a full download is verified while it streams. */
  async openDownload(backupId: string, expires: number, signature: string, rangeHeader: string | undefined): Promise<DownloadPlan> {
    const verdict = await this.signer.check(backupId, expires, signature, this.ctx.now());
    if (verdict === 'invalid') throw new HttpProblem(403, 'This download link is not valid: ask the console for a new one.');
    if (verdict === 'expired') throw new HttpProblem(410, 'This download link has expired (links last 5 minutes): ask the console for a new one.');
    const row = await findBackupRow(this.ctx.db, backupId);
    if (row && isPhysicalFormat(row.format)) throw new HttpProblem(409, physicalOnly.download);
    if (!row || !row.storage_key || !row.sha256) throw new HttpProblem(404, 'The backup no longer exists.');
    if (row.status !== 'succeeded') throw new HttpProblem(409, `The backup is ${row.status}: it cannot be downloaded.`);
    const size = await this.ctx.deps.storage.size(row.storage_key).catch(() => {
      throw new HttpProblem(409, 'The backup file is missing from storage.');
    });
    const stamp = row.started_at.replace(/[:]/g, '').replace(/\.\d+Z$/, 'Z');
    const headers: Record<string, string> = {
      'content-type': 'application/x-tar',
      'content-disposition': `attachment; filename="${row.instance_name}-${row.kind}-${stamp}.tar"`,
      'accept-ranges': 'bytes',
      'cache-control': 'no-store',
      'x-checksum-sha256': row.sha256,
      'repr-digest': `sha-256=:${Buffer.from(row.sha256, 'hex').toString('base64')}:`,
    };
    const range = parseRange(rangeHeader, size);
    if (range === 'unsatisfiable') {
      throw new HttpProblem(416, `The range is outside the file (${size} bytes).`, { headers: { 'content-range': `bytes */${size}` } });
    }
    // A part cannot be checked on its own, and a file of one read chunk would be refused before any
    // header is sent: both are checked whole before anything is served.
    if (range || size <= readChunkBytes) {
      const actual = await digestOf(this.ctx.deps.storage.read(row.storage_key));
      if (actual !== row.sha256) {
        await this.ctx.markCorrupt(row, actual, 'a download');
        throw new HttpProblem(409, 'The backup file no longer matches its checksum: it is marked corrupt.');
      }
    }
    if (range) {
      return {
        status: 206,
        headers: { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${size}`, 'content-length': String(range.end - range.start + 1) },
        body: this.ctx.deps.storage.read(row.storage_key, range),
      };
    }
    const verified = new VerifyingStream(row.sha256, (actual) => void this.ctx.markCorrupt(row, actual, 'a download'));
    const source = this.ctx.deps.storage.read(row.storage_key);
    source.on('error', (error) => verified.destroy(error));
    return { status: 200, headers: { ...headers, 'content-length': String(size) }, body: source.pipe(verified) };
  }
}
