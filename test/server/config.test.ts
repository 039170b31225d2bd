import path from 'node:path';
import { loadConfig } from '../../server/config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});

    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('data'),
      publicUrl: 'http://127.0.0.1:8080',
      allowedOrigins: ['http://127.0.0.1:8080'],
      adminEmail: 'admin@warden.local',
      adminPassword: undefined,
      staticDir: path.resolve(__dirname, '../../dist'),
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      WARDEN_HOST: '0.0.0.0',
      WARDEN_PORT: '0',
      WARDEN_DATA_DIR: '/var/lib/warden',
      WARDEN_PUBLIC_URL: 'https://warden.example.com/',
      WARDEN_ALLOWED_ORIGINS: 'https://warden.example.com, http://localhost:3000',
      WARDEN_ADMIN_EMAIL: 'Ops@Example.com',
      WARDEN_ADMIN_PASSWORD: 'Sup3r-secret',
      WARDEN_STATIC_DIR: '/srv/warden/dist',
      WARDEN_LOG_LEVEL: 'debug',
    });

    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/var/lib/warden',
      publicUrl: 'https://warden.example.com',
      allowedOrigins: ['https://warden.example.com', 'http://localhost:3000'],
      adminEmail: 'ops@example.com',
      adminPassword: 'Sup3r-secret',
      staticDir: '/srv/warden/dist',
      logLevel: 'debug',
    });
  });

  it('archives WAL into the data dir by default, into a bucket when WARDEN_PITR_S3_* name one, and not at all with WARDEN_PITR=off', () => {
    expect(loadConfig({}).pitr).toEqual({ enabled: true, bin: '/usr/bin/pgbackrest', s3: null });
    expect(loadConfig({ WARDEN_PITR: 'off' }).pitr?.enabled).toBe(false);
    const s3 = {
      WARDEN_PITR_S3_ENDPOINT: 'https://127.0.0.1:9443/',
      WARDEN_PITR_S3_BUCKET: 'wal',
      WARDEN_PITR_S3_KEY: 'key',
      WARDEN_PITR_S3_SECRET: 'secret',
      WARDEN_PITR_S3_VERIFY_TLS: 'false',
    };
    expect(loadConfig(s3).pitr?.s3).toEqual({
      endpoint: '127.0.0.1:9443',
      bucket: 'wal',
      region: 'us-east-1',
      key: 'key',
      secret: 'secret',
      prefix: 'warden',
      verifyTls: false,
      caFile: null,
    });
    expect(() => loadConfig({ WARDEN_PITR_S3_ENDPOINT: 'https://s3.example.com', WARDEN_PITR_S3_BUCKET: 'wal' })).toThrow(
      'An S3 repository for point-in-time recovery also needs WARDEN_PITR_S3_KEY, WARDEN_PITR_S3_SECRET.',
    );
  });

  it('puts the store on PostgreSQL when WARDEN_DATABASE_URL names one, with a bounded pool, and refuses any other address without echoing it', () => {
    expect(loadConfig({})).toMatchObject({ databaseUrl: undefined, databasePoolSize: 10 });
    const url = 'postgres://warden:s3cret@db.example.com:5432/warden';
    expect(loadConfig({ WARDEN_DATABASE_URL: url, WARDEN_DATABASE_POOL: '25' })).toMatchObject({ databaseUrl: url, databasePoolSize: 25 });
    for (const [bad, why] of [
      ['mysql://warden:s3cret@db/warden', 'mysql is not postgres'],
      ['postgres://warden:s3cret@db.example.com/', 'no database'],
      ['db.example.com/warden', 'not a URL'],
    ]) {
      expect(() => loadConfig({ WARDEN_DATABASE_URL: bad })).toThrow(`WARDEN_DATABASE_URL must be postgres://user:password@host:port/database (${why})`);
      expect(() => loadConfig({ WARDEN_DATABASE_URL: bad })).not.toThrow(/s3cret/);
    }
    expect(() => loadConfig({ WARDEN_DATABASE_POOL: '0' })).toThrow(/WARDEN_DATABASE_POOL/);
  });

  it('defaults the allowed origins to the public URL origin', () => {
    expect(loadConfig({ WARDEN_PUBLIC_URL: 'https://ops.example.com:8443/warden' }).allowedOrigins).toEqual([
      'https://ops.example.com:8443',
    ]);
  });

  it.each([
    [{ WARDEN_PORT: 'eighty' }, /WARDEN_PORT/],
    [{ WARDEN_PORT: '70000' }, /WARDEN_PORT/],
    [{ WARDEN_PORT: '-1' }, /WARDEN_PORT/],
    [{ WARDEN_PUBLIC_URL: 'warden.local' }, /WARDEN_PUBLIC_URL/],
    [{ WARDEN_PUBLIC_URL: 'ftp://warden.local' }, /WARDEN_PUBLIC_URL/],
    [{ WARDEN_ALLOWED_ORIGINS: 'https://a.example/path' }, /WARDEN_ALLOWED_ORIGINS/],
    [{ WARDEN_ADMIN_EMAIL: 'not-an-email' }, /WARDEN_ADMIN_EMAIL/],
    [{ WARDEN_ADMIN_PASSWORD: 'password' }, /WARDEN_ADMIN_PASSWORD.*PasswordRequiresDigit/],
    [{ WARDEN_LOG_LEVEL: 'loud' }, /WARDEN_LOG_LEVEL/],
  ])('rejects %p with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
