import { base32Decode, base32Encode, newTotpSecret, totpCode, verifyTotp } from '../../server/auth/totp';

// RFC 6238 appendix B, SHA1, secret "12345678901234567890"; 6-digit codes are the last six digits.
const rfcSecret = base32Encode(Buffer.from('12345678901234567890'));
const vectors: [number, string][] = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
  [20000000000, '353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('encodes the RFC secret as base32 and back', () => {
    expect(rfcSecret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq').toString()).toBe('12345678901234567890');
  });

  it.each(vectors)('at %i s the code is %s', (seconds, code) => {
    expect(totpCode(rfcSecret, new Date(seconds * 1000))).toBe(code);
    expect(verifyTotp(rfcSecret, code, new Date(seconds * 1000))).toBe(true);
  });

  it('accepts one step of drift either way and nothing further', () => {
    const at = new Date(1234567890 * 1000);
    const code = totpCode(rfcSecret, at);

    expect(verifyTotp(rfcSecret, code, new Date(at.getTime() + 30_000))).toBe(true);
    expect(verifyTotp(rfcSecret, code, new Date(at.getTime() - 30_000))).toBe(true);
    expect(verifyTotp(rfcSecret, code, new Date(at.getTime() + 60_000))).toBe(false);
    expect(verifyTotp(rfcSecret, code, new Date(at.getTime() - 60_000))).toBe(false);
  });

  it('rejects malformed codes and tolerates spaces', () => {
    const at = new Date(59_000);

    expect(verifyTotp(rfcSecret, '287 082', at)).toBe(true);
    expect(verifyTotp(rfcSecret, '28708', at)).toBe(false);
    expect(verifyTotp(rfcSecret, 'abcdef', at)).toBe(false);
    expect(verifyTotp(rfcSecret, '', at)).toBe(false);
  });

  it('makes new 160-bit secrets that differ', () => {
    const a = newTotpSecret();

    expect(base32Decode(a)).toHaveLength(20);
    expect(a).not.toBe(newTotpSecret());
  });
});
