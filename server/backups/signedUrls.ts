import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/schema';
import { sharedSecret } from '../db/secrets';

/**
 * Short-lived download links (HMAC-SHA256 over the backup id and the expiry). The key lives in
 * `<dataDir>/secrets`, so links survive a server restart and die with their expiry; servers sharing a
 * PostgreSQL store share one key kept in it, so a link made by one opens on any.
 */
export class UrlSigner {
  private key: Buffer | Promise<Buffer>;

  constructor(dataDir: string, shared?: Db) {
    this.key = shared ? sharedSecret(shared, 'download-signing') : fileKey(dataDir);
  }

  private async signature(backupId: string, expires: number): Promise<string> {
    const key = await this.key;
    this.key = key;
    return createHmac('sha256', key).update(`backup-download\n${backupId}\n${expires}`).digest('base64url');
  }

  async sign(backupId: string, expiresAt: Date): Promise<{ expires: number; signature: string }> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return { expires, signature: await this.signature(backupId, expires) };
  }

  /** 'ok', or why the link cannot be used. */
  async check(backupId: string, expires: number, signature: string, now: Date): Promise<'ok' | 'invalid' | 'expired'> {
    const expected = Buffer.from(await this.signature(backupId, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return now.getTime() > expires * 1000 ? 'expired' : 'ok';
  }
}

/** A single `bytes=` range of RFC 9110, or 'unsatisfiable'; null means the whole file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges or another unit: answer the whole file, as RFC 9110 allows.
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** The key of `<dataDir>/secrets/download-signing.key`, made on first use. */
function fileKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secrets', 'download-signing.key');
  let key: Buffer;
  try {
    key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url');
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    key = randomBytes(32);
    fs.writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  }
  if (key.length < 32) throw new Error(`${file} holds no usable signing key: delete it and restart.`);
  return key;
}
