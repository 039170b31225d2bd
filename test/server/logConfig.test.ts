import { loadConfig } from '../../server/config';

// WARDEN_LOG_RETENTION and WARDEN_LOG_MAX_BYTES: read with units, refused with a message naming the variable.

describe('log retention settings', () => {
  it('default to 14 days and no byte cap', () => {
    const config = loadConfig({});
    expect(config.logRetentionMs).toBe(14 * 86_400_000);
    expect(config.logMaxBytes).toBe(0);
  });

  it('read durations and sizes with units', () => {
    expect(loadConfig({ WARDEN_LOG_RETENTION: '36h' }).logRetentionMs).toBe(36 * 3_600_000);
    expect(loadConfig({ WARDEN_LOG_RETENTION: '2w' }).logRetentionMs).toBe(14 * 86_400_000);
    expect(loadConfig({ WARDEN_LOG_RETENTION: '0' }).logRetentionMs).toBe(0);
    expect(loadConfig({ WARDEN_LOG_MAX_BYTES: '512MB' }).logMaxBytes).toBe(512 * 1024 ** 2);
    expect(loadConfig({ WARDEN_LOG_MAX_BYTES: '2gib' }).logMaxBytes).toBe(2 * 1024 ** 3);
    expect(loadConfig({ WARDEN_LOG_MAX_BYTES: '100000' }).logMaxBytes).toBe(100_000);
  });

  it('refuse anything else, naming the variable', () => {
    expect(() => loadConfig({ WARDEN_LOG_RETENTION: '14' })).toThrow(/WARDEN_LOG_RETENTION must be a number with a unit/);
    expect(() => loadConfig({ WARDEN_LOG_RETENTION: '-1d' })).toThrow(/WARDEN_LOG_RETENTION/);
    expect(() => loadConfig({ WARDEN_LOG_MAX_BYTES: 'lots' })).toThrow(/WARDEN_LOG_MAX_BYTES must be a size/);
    expect(() => loadConfig({ WARDEN_LOG_MAX_BYTES: '5PB' })).toThrow(/WARDEN_LOG_MAX_BYTES/);
  });
});
