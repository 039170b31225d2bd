import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// RFC 6238 TOTP as authenticator apps do it: HMAC-SHA1, 6 digits, 30 s steps, base32 secret.
const stepSeconds = 30;
const digits = 6;
/** Accept the previous and next step too: phone clocks drift and people type slowly. */
const window = 1;

const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=-]/g, '');
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of clean) {
    const index = base32Alphabet.indexOf(char);
    if (index < 0) throw new Error('The shared key is not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += base32Alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A new shared key for an authenticator app (160 bits, as RFC 4226 recommends). */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

function hotp(key: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

function stepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / stepSeconds);
}

/** The code an authenticator app shows at `at`. */
export function totpCode(secret: string, at: Date): string {
  return hotp(base32Decode(secret), stepAt(at));
}

/** Whether `code` is valid at `at` (± one step). Spaces in the typed code are ignored. */
export function verifyTotp(secret: string, code: string, at: Date): boolean {
  const typed = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(typed)) return false;
  const key = base32Decode(secret);
  const step = stepAt(at);
  let ok = false;
  // Check every step without returning early, so timing does not tell which one matched.
  for (let offset = -window; offset <= window; offset++) {
    ok = timingSafeEqual(Buffer.from(hotp(key, step + offset)), Buffer.from(typed)) || ok;
  }
  return ok;
}
