import { createHash, randomBytes } from 'node:crypto';

/** An unguessable bearer secret for a cookie, access or refresh token. Only its hash is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Sessions are looked up by this, so a leaked store does not leak usable tokens. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
