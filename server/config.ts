import os from 'node:os';
import path from 'node:path';
import { passwordErrors } from './auth/passwordRules';
import { debianEngineBinaries, type EngineBinaries } from './engines/detect';
import type { S3Bucket } from './engines/pgArchive';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface Config {
  host: string;
  /** 0 asks the OS for a free port. */
  port: number;
  /** Absolute. Holds the store and, later, instances' data and local backups. */
  dataDir: string;
  /**
   * The store on PostgreSQL (WARDEN_DATABASE_URL=postgres://user:password@host:port/database), shared
   * by several servers; absent, the embedded SQLite store in the data folder.
   */
  databaseUrl?: string;
  /** The most connections this server keeps to a PostgreSQL store (WARDEN_DATABASE_POOL, default 10). */
  databasePoolSize?: number;
  /** Origin (and optional base path) users reach Warden at; no trailing slash. */
  publicUrl: string;
  /** Origins allowed to make cookie-authenticated mutating calls (CSRF defence) and hub upgrades. */
  allowedOrigins: string[];
  adminEmail: string;
  /** Password of the first admin; undefined means one is generated and printed once. */
  adminPassword: string | undefined;
  /** The built SPA (webpack output). */
  staticDir: string;
  logLevel: LogLevel;
  /** Sign-in attempts per minute from one IP address, on top of the per-account lockout. */
  loginRateLimit: number;
  /** Engine binaries: Debian's paths unless WARDEN_PG_BINDIR / WARDEN_ETCD_BIN / WARDEN_ETCDCTL_BIN say otherwise. */
  engines: EngineBinaries;
  // Identity settings. Optional so a hand-made Config (tests) may leave them out: absent means the
  // default in `identityDefaults` (registration closed, no SMTP: e-mails only go to the outbox).
  /** Whether POST /auth/register is open to anyone. */
  allowRegistration?: boolean;
  /** smtp:// or smtps:// URL (credentials included) that e-mails are sent through. */
  smtpUrl?: string;
  /** The From of e-mails; default `Warden <warden@<public URL host>>`. */
  mailFrom?: string;
  /** Calls per minute from one IP address to each of register, confirmEmail, resend, forgot, reset and refresh. */
  authRateLimit?: number;
  /** Loopback ports handed to instances (WARDEN_INSTANCE_PORTS, e.g. 15400-15999). */
  instancePorts?: { from: number; to: number };
  /** How often every instance's health is probed. */
  probeIntervalMs?: number;
  /** How often instances' log files are read for new lines. */
  logPollMs?: number;
  /** How often running instances' metrics are sampled (WARDEN_METRICS_INTERVAL_MS). */
  metricsIntervalMs?: number;
  /** Calls per minute naming one account (by e-mail) to each of login, forgotPassword, resendConfirmationEmail, resetPassword. */
  accountRateLimit?: number;
  /** Instances one user may create or clone per minute (WARDEN_INSTANCE_CREATE_RATE_LIMIT). */
  instanceCreateRateLimit?: number;
  /** Log entries older than this are trimmed (WARDEN_LOG_RETENTION, e.g. 14d); 0 keeps them. */
  logRetentionMs?: number;
  /** The log store is trimmed, oldest first, to this many bytes of entries (WARDEN_LOG_MAX_BYTES); 0 is no cap. */
  logMaxBytes?: number;
  /**
   * Whether the server builds the command-line client's releases of its version in the background
   * once it listens (WARDEN_BUILD_CLIENTS=auto, the default) or never; absent (a hand-made Config) is never.
   */
  buildClients?: 'auto' | 'never';
  /** The longest timeout a script run may ask for (WARDEN_SCRIPT_TIMEOUT_MAX, e.g. 10m); default scriptDefaults.timeoutMaxMs. */
  scriptTimeoutMaxMs?: number;
  /**
   * WAL archiving and point-in-time recovery of pg instances with pgBackRest (WARDEN_PITR=on, the
   * default; off turns it off): the binary, and the repositories' place — `<dataDir>/pitr` unless
   * WARDEN_PITR_S3_* name a bucket. Absent (a hand-made Config) is off.
   */
  pitr?: PitrConfig;
  /**
   * What this process does (WARDEN_ROLE): `all` (the default) serves the console and runs the
   * instances of its own machine; `server` serves the console only, handing instance work to the
   * hosts' agents through the store; `agent` runs one host's instances and serves only /healthz.
   * `server` and `agent` need a PostgreSQL store. Absent (a hand-made Config) is `all`.
   */
  role?: WardenRole;
  /** The host a supervising process registers as (WARDEN_HOST_NAME, default the machine's name) and its clients' address (WARDEN_HOST_ADDRESS). */
  hostName?: string;
  hostAddress?: string;
  /** How often a supervising process heartbeats for its host (WARDEN_HEARTBEAT_MS); default hostDefaults.heartbeatMs. */
  heartbeatMs?: number;
}

export const wardenRoles = ['all', 'server', 'agent'] as const;
export type WardenRole = (typeof wardenRoles)[number];
export const hostDefaults = { heartbeatMs: 4000, address: '127.0.0.1' } as const;

/** Whether this process runs instances (and so is a host): `all` and `agent` do. */
export const runsInstances = (config: Pick<Config, 'role'>) => (config.role ?? 'all') !== 'server';

export const identityDefaults = { allowRegistration: false, authRateLimit: 20, accountRateLimit: 10 } as const;
export const instanceDefaults = { instancePorts: { from: 15400, to: 15999 }, probeIntervalMs: 5000, logPollMs: 1000, instanceCreateRateLimit: 10 } as const;

export const logDefaults = { retentionMs: 14 * 86_400_000, maxBytes: 0, trimIntervalMs: 60_000 } as const;

export const metricsDefaults = { intervalMs: 10_000 } as const;
export const scriptDefaults = { timeoutMaxMs: 10 * 60_000 } as const;

type Env = Record<string, string | undefined>;

// Server files live in <repo>/server, so the built SPA is one level up.
const repoRoot = path.resolve(__dirname, '..');

/** Environment → typed config (DESIGN §4). Throws an Error naming the variable on a bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };

  const publicUrl = parsePublicUrl(read('WARDEN_PUBLIC_URL') ?? 'http://127.0.0.1:8080');
  const adminPassword = env.WARDEN_ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && passwordErrors(adminPassword).length > 0) {
    throw new Error(
      `WARDEN_ADMIN_PASSWORD does not meet the password rules (${passwordErrors(adminPassword).join(', ')}): ` +
        'use 8 or more characters with a digit, a lower-case letter, an upper-case letter and a symbol',
    );
  }

  return {
    host: read('WARDEN_HOST') ?? '127.0.0.1',
    port: parseInteger('WARDEN_PORT', read('WARDEN_PORT'), 8080, 0, 65535),
    dataDir: path.resolve(read('WARDEN_DATA_DIR') ?? './data'),
    databaseUrl: parseDatabaseUrl(read('WARDEN_DATABASE_URL')),
    databasePoolSize: parseInteger('WARDEN_DATABASE_POOL', read('WARDEN_DATABASE_POOL'), 10, 1, 1_000),
    ...hostSettings(read),
    publicUrl,
    allowedOrigins: parseOrigins(read('WARDEN_ALLOWED_ORIGINS'), new URL(publicUrl).origin),
    adminEmail: parseEmail(read('WARDEN_ADMIN_EMAIL') ?? 'admin@warden.local'),
    adminPassword,
    staticDir: path.resolve(read('WARDEN_STATIC_DIR') ?? path.join(repoRoot, 'dist')),
    logLevel: parseLogLevel(read('WARDEN_LOG_LEVEL') ?? 'info'),
    loginRateLimit: parseInteger('WARDEN_LOGIN_RATE_LIMIT', read('WARDEN_LOGIN_RATE_LIMIT'), 30, 1, 100_000),
    engines: {
      pgBinDir: read('WARDEN_PG_BINDIR') ?? debianEngineBinaries.pgBinDir,
      etcdBin: read('WARDEN_ETCD_BIN') ?? debianEngineBinaries.etcdBin,
      etcdctlBin: read('WARDEN_ETCDCTL_BIN') ?? debianEngineBinaries.etcdctlBin,
    },
    instancePorts: parsePortRange(read('WARDEN_INSTANCE_PORTS')),
    probeIntervalMs: parseInteger('WARDEN_PROBE_INTERVAL_MS', read('WARDEN_PROBE_INTERVAL_MS'), instanceDefaults.probeIntervalMs, 200, 3_600_000),
    logPollMs: parseInteger('WARDEN_LOG_POLL_MS', read('WARDEN_LOG_POLL_MS'), instanceDefaults.logPollMs, 50, 60_000),
    metricsIntervalMs: parseInteger('WARDEN_METRICS_INTERVAL_MS', read('WARDEN_METRICS_INTERVAL_MS'), metricsDefaults.intervalMs, 200, 3_600_000),
    instanceCreateRateLimit: parseInteger(
      'WARDEN_INSTANCE_CREATE_RATE_LIMIT',
      read('WARDEN_INSTANCE_CREATE_RATE_LIMIT'),
      instanceDefaults.instanceCreateRateLimit,
      1,
      100_000,
    ),
    logRetentionMs: parseDuration('WARDEN_LOG_RETENTION', read('WARDEN_LOG_RETENTION'), logDefaults.retentionMs),
    logMaxBytes: parseByteSize('WARDEN_LOG_MAX_BYTES', read('WARDEN_LOG_MAX_BYTES'), logDefaults.maxBytes),
    buildClients: parseChoice('WARDEN_BUILD_CLIENTS', read('WARDEN_BUILD_CLIENTS'), ['auto', 'never'] as const, 'auto'),
    // 0 (no ceiling) is not allowed: a run always ends.
    scriptTimeoutMaxMs: parseDuration('WARDEN_SCRIPT_TIMEOUT_MAX', read('WARDEN_SCRIPT_TIMEOUT_MAX'), scriptDefaults.timeoutMaxMs) || scriptDefaults.timeoutMaxMs,
    allowRegistration: parseBoolean('WARDEN_ALLOW_REGISTRATION', read('WARDEN_ALLOW_REGISTRATION'), identityDefaults.allowRegistration),
    smtpUrl: parseSmtpUrl(read('WARDEN_SMTP_URL')),
    pitr: parsePitr(read),
    mailFrom: read('WARDEN_MAIL_FROM'),
    authRateLimit: parseInteger('WARDEN_AUTH_RATE_LIMIT', read('WARDEN_AUTH_RATE_LIMIT'), identityDefaults.authRateLimit, 1, 100_000),
    accountRateLimit: parseInteger(
      'WARDEN_ACCOUNT_RATE_LIMIT',
      read('WARDEN_ACCOUNT_RATE_LIMIT'),
      identityDefaults.accountRateLimit,
      1,
      100_000,
    ),
  };
}

export interface PitrConfig {
  enabled: boolean;
  bin: string;
  s3: S3Bucket | null;
}

/** WARDEN_PITR and WARDEN_PITR_S3_*: a bucket needs its endpoint, name, key and secret, or none of them. */
function parsePitr(read: (name: string) => string | undefined): PitrConfig {
  const s3Names = ['ENDPOINT', 'BUCKET', 'KEY', 'SECRET'] as const;
  const given = s3Names.filter((name) => read(`WARDEN_PITR_S3_${name}`) !== undefined);
  if (given.length > 0 && given.length < s3Names.length) {
    const missing = s3Names.filter((name) => !given.includes(name)).map((name) => `WARDEN_PITR_S3_${name}`);
    throw new Error(`An S3 repository for point-in-time recovery also needs ${missing.join(', ')}.`);
  }
  const endpoint = read('WARDEN_PITR_S3_ENDPOINT');
  const caFile = read('WARDEN_PITR_S3_CA_FILE');
  return {
    enabled: parseBoolean('WARDEN_PITR', read('WARDEN_PITR'), true),
    bin: read('WARDEN_PGBACKREST_BIN') ?? '/usr/bin/pgbackrest',
    s3:
      endpoint === undefined
        ? null
        : {
            // pgBackRest takes a host (and port) and always speaks TLS.
            endpoint: endpoint.replace(/^https:\/\//, '').replace(/\/+$/, ''),
            bucket: read('WARDEN_PITR_S3_BUCKET')!,
            region: read('WARDEN_PITR_S3_REGION') ?? 'us-east-1',
            key: read('WARDEN_PITR_S3_KEY')!,
            secret: read('WARDEN_PITR_S3_SECRET')!,
            prefix: (read('WARDEN_PITR_S3_PREFIX') ?? 'warden').replace(/^\/+|\/+$/g, ''),
            verifyTls: parseBoolean('WARDEN_PITR_S3_VERIFY_TLS', read('WARDEN_PITR_S3_VERIFY_TLS'), true),
            caFile: caFile ? path.resolve(caFile) : null,
          },
  };
}

/** WARDEN_ROLE and the host a supervising process registers as. */
function hostSettings(read: (name: string) => string | undefined): Pick<Config, 'role' | 'hostName' | 'hostAddress' | 'heartbeatMs'> {
  const role = parseChoice('WARDEN_ROLE', read('WARDEN_ROLE'), wardenRoles, 'all');
  if (role !== 'all' && !read('WARDEN_DATABASE_URL')) {
    throw new Error(`WARDEN_ROLE=${role} needs WARDEN_DATABASE_URL: servers and agents share a PostgreSQL store`);
  }
  const hostName = read('WARDEN_HOST_NAME') ?? os.hostname();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(hostName)) {
    throw new Error(`WARDEN_HOST_NAME must be 1 to 63 letters, digits, dots, dashes or underscores, got '${hostName}'`);
  }
  const hostAddress = read('WARDEN_HOST_ADDRESS') ?? hostDefaults.address;
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(hostAddress)) throw new Error(`WARDEN_HOST_ADDRESS must be a host name or an IP address, got '${hostAddress}'`);
  return { role, hostName, hostAddress, heartbeatMs: parseInteger('WARDEN_HEARTBEAT_MS', read('WARDEN_HEARTBEAT_MS'), hostDefaults.heartbeatMs, 200, 600_000) };
}

/** Cookies get the Secure flag exactly when users reach Warden over https. */
export function usesHttps(config: Pick<Config, 'publicUrl'>): boolean {
  return config.publicUrl.startsWith('https:');
}

function parseInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

const durationUnits: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `14d`, `36h`, `90m`, `0` (off). */
export function parseDuration(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (raw === '0') return 0;
  const match = /^(\d{1,6})([smhdw])$/.exec(raw);
  if (!match) throw new Error(`${name} must be a number with a unit s, m, h, d or w (e.g. 14d), or 0 to keep everything, got '${raw}'`);
  return Number(match[1]) * durationUnits[match[2]];
}

const byteUnits: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `500000000`, `512MB`, `2GB`, `0` (no cap); units are powers of 1024. */
export function parseByteSize(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const match = /^(\d{1,15})\s*([kmgt]?)i?b?$/i.exec(raw);
  const value = match ? Number(match[1]) * byteUnits[match[2].toLowerCase()] : NaN;
  if (!match || !Number.isSafeInteger(value)) throw new Error(`${name} must be a size like 2GB or 500MB (or 0 for no cap), got '${raw}'`);
  return value;
}

function parsePortRange(raw: string | undefined): { from: number; to: number } {
  if (raw === undefined) return { ...instanceDefaults.instancePorts };
  const match = /^(\d+)-(\d+)$/.exec(raw);
  const from = Number(match?.[1]);
  const to = Number(match?.[2]);
  if (!match || from < 1024 || to > 65535 || from > to) {
    throw new Error(`WARDEN_INSTANCE_PORTS must be a range like 15400-15999 within 1024-65535, got '${raw}'`);
  }
  return { from, to };
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got '${raw}'`);
}

function parseChoice<T extends string>(name: string, raw: string | undefined, choices: readonly T[], fallback: T): T {
  if (raw === undefined) return fallback;
  const choice = choices.find((c) => c === raw);
  if (!choice) throw new Error(`${name} must be one of ${choices.join(', ')}, got '${raw}'`);
  return choice;
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // The value may hold a password, so it is not repeated in the message.
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') {
    throw new Error('WARDEN_SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com:465');
  }
  return raw;
}

/** What is wrong with a PostgreSQL store's address (postgres:// or postgresql://, a host, a database), or null; never the address itself, which may hold a password. */
export function databaseUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return `${url.protocol.replace(/:$/, '')} is not postgres`;
  if (!url.hostname) return 'no host';
  if (url.pathname.replace(/^\//, '') === '') return 'no database';
  return null;
}

function parseDatabaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const problem = databaseUrlProblem(raw);
  if (problem) throw new Error(`WARDEN_DATABASE_URL must be postgres://user:password@host:port/database (${problem})`);
  return raw;
}

function parsePublicUrl(raw: string): string {
  const url = parseHttpUrl('WARDEN_PUBLIC_URL', raw);
  return url.href.replace(/\/$/, '');
}

function parseOrigins(raw: string | undefined, fallback: string): string[] {
  if (raw === undefined) return [fallback];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const url = parseHttpUrl('WARDEN_ALLOWED_ORIGINS', entry);
      if (url.pathname !== '/' || url.search || url.hash || entry.endsWith('/')) {
        throw new Error(`WARDEN_ALLOWED_ORIGINS entries must be origins like https://warden.example.com, got '${entry}'`);
      }
      return url.origin;
    });
}

function parseHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must use http or https, got '${raw}'`);
  }
  return url;
}

function parseEmail(raw: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(raw)) throw new Error(`WARDEN_ADMIN_EMAIL must be an e-mail address, got '${raw}'`);
  return raw.toLowerCase();
}

function parseLogLevel(raw: string): LogLevel {
  const level = logLevels.find((l) => l === raw);
  if (!level) throw new Error(`WARDEN_LOG_LEVEL must be one of ${logLevels.join(', ')}, got '${raw}'`);
  return level;
}
