import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Short-lived download links (HMAC-SHA256 over the backup id and the expiry). The key lives in
 * `<dataDir>/secrets`, so links survive a server restart and die with their expiry.
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    const file = path.join(dataDir, 'secrets', 'download-signing.key');
    try {
      this.key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url');
    } catch {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const key = randomBytes(32);
      fs.writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      this.key = key;
    }
    if (this.key.length < 32) throw new Error(`${file} holds no usable signing key: delete it and restart.`);
  }

  private signature(backupId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`backup-download\n${backupId}\n${expires}`).digest('base64url');
  }

  sign(backupId: string, expiresAt: Date): { expires: number; signature: string } {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return { expires, signature: this.signature(backupId, expires) };
  }

  /** 'ok', or why the link cannot be used. */
  check(backupId: string, expires: number, signature: string, now: Date): 'ok' | 'invalid' | 'expired' {
    const expected = Buffer.from(this.signature(backupId, expires));
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
