import { Secret, TOTP } from 'otpauth';

// RFC 6238 TOTP as authenticator apps do it (HMAC-SHA1, 6 digits, 30 s steps, base32 secret),
// computed by the otpauth library rather than by hand.
const stepSeconds = 30;
const digits = 6;
/** Accept the previous and next step too: phone clocks drift and people type slowly. */
const window = 1;
const issuer = 'Warden';

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=-]/g, '');
  // Refuse anything outside the alphabet rather than let a mistyped key decode to other bytes.
  if (!/^[A-Z2-7]*$/.test(clean)) throw new Error('The shared key is not base32');
  return Buffer.from(Secret.fromBase32(clean).bytes);
}

export function base32Encode(bytes: Buffer): string {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer }).base32;
}

/** A new shared key for an authenticator app (160 bits, as RFC 4226 recommends). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label = ''): TOTP {
  const key = Secret.fromBase32(secret.toUpperCase().replace(/[\s=-]/g, ''));
  return new TOTP({ issuer, label, secret: key, algorithm: 'SHA1', digits, period: stepSeconds });
}

/** The 30-second step `at` falls in: what replay protection remembers. */
export function totpStep(at: Date): number {
  return TOTP.counter({ period: stepSeconds, timestamp: at.getTime() });
}

/** The code an authenticator app shows at `at`. */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/** The otpauth:// URI (Google's Key URI format) an authenticator app reads from the QR code. */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/**
 * The step whose code `code` is, within ± one step of `at`, or null when it matches none.
 * Spaces in the typed code are ignored.
 */
export function matchTotpStep(secret: string, code: string, at: Date): number | null {
  const typed = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(typed)) return null;
  const delta = totp(secret).validate({ token: typed, timestamp: at.getTime(), window });
  return delta === null ? null : totpStep(at) + delta;
}

/** Whether `code` is valid at `at` (± one step). Spaces in the typed code are ignored. */
export function verifyTotp(secret: string, code: string, at: Date): boolean {
  return matchTotpStep(secret, code, at) !== null;
}
