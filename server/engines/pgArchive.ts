import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { archiveTimeoutSeconds, recoveryWindowDays, type PhysicalBackupKind } from '../../contracts/pitr';
import type { InstanceRuntime } from './engine';
import { clusterMembers, memberSocketDir, type ClusterMember } from './pgCluster';
import { writeInstanceFile } from './instanceFiles';
import { existingInstanceUser, instanceUser, type EngineUser } from './instanceUsers';
import { EngineError, giveToEngineUser, run } from './processRunner';

// WAL archiving and physical backups of a pg instance with pgBackRest (DESIGN §12). Each instance
// has a stanza in a repository of its own (a folder owned by its user, or a prefix of a bucket),
// encrypted with a key of its own, so no instance's user can read another's WAL or backups.
// Every command runs as the instance's user, confined to its folder and its repository.

/** An S3-compatible bucket the repositories go in (path-style addresses, always TLS). */
export interface S3Bucket {
  /** Host and port, no scheme. */
  endpoint: string;
  bucket: string;
  region: string;
  key: string;
  secret: string;
  /** The folder of the bucket the repositories go under (no leading or trailing slash). */
  prefix: string;
  verifyTls: boolean;
  caFile: string | null;
}

/** Where the repositories are: folders under `root` on this server, or prefixes in one bucket. */
export type PitrRepository = { kind: 'local'; root: string } | ({ kind: 's3' } & S3Bucket);

export interface PitrOptions {
  /** The pgbackrest binary. */
  bin: string;
  repository: PitrRepository;
}

/** What an operator may set per instance. */
export interface ArchiveSettings {
  archiveTimeoutSeconds: number;
  retentionDays: number;
}

const defaultArchiveSettings: ArchiveSettings = {
  archiveTimeoutSeconds: archiveTimeoutSeconds.default,
  retentionDays: recoveryWindowDays.default,
};

/** One stanza per repository, and one repository per instance: the name needs to say nothing more. */
export const stanza = 'warden';
export const walSegmentBytes = 16 * 1024 * 1024;

/** `pgbackrest info --output=json`, the parts Warden reads. */
export interface InfoBackup {
  label: string;
  type: PhysicalBackupKind;
  prior: string | null;
  reference: string[] | null;
  error?: boolean;
  archive: { start: string | null; stop: string | null };
  lsn: { start: string; stop: string };
  timestamp: { start: number; stop: number };
  info: { size: number; delta: number; repository: { size: number; delta: number } };
}
export interface InfoArchive {
  id: string;
  min: string | null;
  max: string | null;
}
export interface StanzaInfo {
  name: string;
  status: { code: number; message: string; lock?: { backup?: { held: boolean; size?: number; 'size-cplt'?: number } } };
  backup: InfoBackup[];
  archive: InfoArchive[];
  db: { id: number; version: string; 'system-id': number }[];
}

/** A WAL segment (or history file) in the repository's archive, with when it arrived. */
export interface ArchivedFile {
  name: string;
  /** The archive id (`15-1`): PostgreSQL release and the stanza's database history. */
  archiveId: string;
  bytes: number;
  /** Unix seconds the file was written to the repository. */
  time: number;
}

/** What the postmaster and pgBackRest share of an instance's archiving. */
const files = (rt: InstanceRuntime) => ({
  /** pgbackrest.conf: the instance user's, 0600; it holds the cipher key pgBackRest must read. */
  conf: path.join(rt.dir, 'pgbackrest.conf'),
  /** The repository cipher key: the server's own copy, 0600, the source of truth. */
  key: path.join(rt.dir, 'pitr.key'),
  /** Settings an operator chose (archive timeout, window). */
  settings: path.join(rt.dir, 'pitr.json'),
  /** Asynchronous archive-push's queue. */
  spool: path.join(rt.dir, 'pitr-spool'),
  /** pgBackRest's locks: every command of the instance sees the same ones, whatever its /tmp. */
  locks: path.join(rt.dir, 'run', 'pgbackrest'),
  log: path.join(rt.dir, 'logs', 'pgbackrest'),
});

/** A cluster member's queue of WAL to archive: each member archives as if on a host of its own. */
const memberSpool = (m: ClusterMember) => path.join(m.dir, 'pitr-spool');

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** An option value as pgbackrest.conf takes it: one line, no comment character. */
function confValue(value: string): string {
  if (/[\r\n]/.test(value)) throw new EngineError('A pgBackRest option cannot hold a line break.');
  return value;
}

export type PgArchive = ReturnType<typeof pgArchive>;

export function pgArchive({ bin, repository }: PitrOptions) {
  const repoPath = (rt: InstanceRuntime) =>
    repository.kind === 'local' ? path.join(repository.root, rt.id) : `/${[repository.prefix, rt.id].filter(Boolean).join('/')}`;
  /** What a confined command of the instance may write besides its folder: the local repository. */
  const binds = (rt: InstanceRuntime): string[] => (repository.kind === 'local' ? [repoPath(rt)] : []);

  function settings(rt: InstanceRuntime): ArchiveSettings {
    return { ...defaultArchiveSettings, ...readJson<Partial<ArchiveSettings>>(files(rt).settings) };
  }

  function cipherKey(rt: InstanceRuntime): string {
    const { key } = files(rt);
    if (!fs.existsSync(key)) writeInstanceFile(key, `${randomBytes(48).toString('base64url')}\n`, { within: rt.dir });
    return fs.readFileSync(key, 'utf8').trim();
  }

  function configuration(rt: InstanceRuntime, socket: string): string {
    const f = files(rt);
    const { retentionDays } = settings(rt);
    const repo =
      repository.kind === 'local'
        ? ['repo1-type=posix']
        : [
            'repo1-type=s3',
            `repo1-s3-endpoint=${confValue(repository.endpoint)}`,
            `repo1-s3-bucket=${confValue(repository.bucket)}`,
            `repo1-s3-region=${confValue(repository.region)}`,
            `repo1-s3-key=${confValue(repository.key)}`,
            `repo1-s3-key-secret=${confValue(repository.secret)}`,
            'repo1-s3-uri-style=path',
            `repo1-storage-verify-tls=${repository.verifyTls ? 'y' : 'n'}`,
            ...(repository.caFile ? [`repo1-storage-ca-file=${confValue(repository.caFile)}`] : []),
          ];
    // A cluster lists every member, as pgBackRest's documentation has it for a primary and its
    // standbys: a backup finds the primary among them, and may copy from a standby. All members are on
    // this host, each in its own folder with its own socket.
    const pgs = rt.cluster
      ? clusterMembers(rt).flatMap((m, i) => {
          const socketDir = memberSocketDir(m);
          return [`pg${i + 1}-path=${path.join(m.dir, 'data')}`, `pg${i + 1}-port=${m.port}`, ...(socketDir ? [`pg${i + 1}-socket-path=${socketDir}`] : []), `pg${i + 1}-user=postgres`];
        })
      : [`pg1-path=${path.join(rt.dir, 'data')}`, `pg1-port=${rt.port}`, `pg1-socket-path=${socket}`, 'pg1-user=postgres'];
    return [
      '# Managed by Warden: rewritten at every start.',
      '[global]',
      ...repo,
      `repo1-path=${confValue(repoPath(rt))}`,
      'repo1-cipher-type=aes-256-cbc',
      `repo1-cipher-pass=${cipherKey(rt)}`,
      // The window: a full backup is kept until a newer one is older than the window, so a restore to
      // any moment of it has a backup to start from; WAL older than the oldest kept backup goes with it.
      'repo1-retention-full-type=time',
      `repo1-retention-full=${retentionDays}`,
      'compress-type=lz4',
      'archive-async=y',
      `spool-path=${f.spool}`,
      `lock-path=${f.locks}`,
      `log-path=${f.log}`,
      'log-level-file=off',
      'log-level-console=warn',
      'log-level-stderr=off',
      'start-fast=y',
      'process-max=2',
      '',
      `[${stanza}]`,
      ...pgs,
      '',
    ].join('\n');
  }

  /** The instance's user, or (for work on an instance whose user is gone) none to run as. */
  function userOf(rt: InstanceRuntime): EngineUser | null {
    return existingInstanceUser(rt) ?? instanceUser(rt);
  }

  const api = {
    repository: repository.kind,
    repoPath,
    binds,
    settings,

    saveSettings(rt: InstanceRuntime, chosen: ArchiveSettings) {
      writeInstanceFile(files(rt).settings, JSON.stringify(chosen), { within: rt.dir });
    },

    /**
     * Makes what archiving needs before the postmaster starts: the repository folder (its user's,
     * 0700, under a root-owned 0711 parent), the key, the spool and the configuration.
     */
    prepare(rt: InstanceRuntime, socket: string) {
      const user = instanceUser(rt);
      const f = files(rt);
      if (repository.kind === 'local') {
        fs.mkdirSync(repository.root, { recursive: true, mode: 0o711 });
        const repo = repoPath(rt);
        fs.mkdirSync(repo, { recursive: true, mode: 0o700 });
        fs.chmodSync(repo, 0o700);
        giveToEngineUser(user, repo);
      }
      const memberSpools = rt.cluster ? clusterMembers(rt).map(memberSpool) : [];
      // The locks' parent is a single server's socket folder; a cluster's members have their own.
      for (const dir of [f.spool, path.dirname(f.locks), f.locks, f.log, ...memberSpools]) {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        giveToEngineUser(user, dir);
      }
      writeInstanceFile(f.conf, configuration(rt, socket), { within: rt.dir, owner: user });
    },

    /** The lines warden.conf gets: archiving on, through pgBackRest, at least every archive timeout. */
    managedLines(rt: InstanceRuntime): string[] {
      const f = files(rt);
      return [
        'archive_mode = on',
        `archive_command = '${bin} --config=${f.conf} --stanza=${stanza} archive-push %p'`,
        `archive_timeout = ${settings(rt).archiveTimeoutSeconds}`,
      ];
    },

    /**
     * A cluster member's archiving, for its Patroni's parameters: the same as a single server's, with
     * the member's own data folder (the WAL file names PostgreSQL passes are relative to it) and its
     * own queue. Only the member that leads archives; a replica's archive_mode "on" waits for its promotion.
     */
    memberParameters(rt: InstanceRuntime, m: ClusterMember): Record<string, string> {
      return {
        archive_mode: 'on',
        archive_command: `${bin} --config=${files(rt).conf} --stanza=${stanza} --pg1-path=${path.join(m.dir, 'data')} --spool-path=${memberSpool(m)} archive-push %p`,
        archive_timeout: String(settings(rt).archiveTimeoutSeconds),
      };
    },

    /** Runs a pgBackRest command of the instance's stanza as its user; `password` lets it reach the running server. */
    async command(rt: InstanceRuntime, args: string[], options: { password?: string; timeoutMs?: number; binds?: string[] } = {}) {
      return run(userOf(rt), bin, [`--config=${files(rt).conf}`, `--stanza=${stanza}`, ...args], {
        env: options.password ? { PGPASSWORD: options.password } : {},
        binds: [...binds(rt), ...(options.binds ?? [])],
        timeoutMs: options.timeoutMs ?? 120_000,
      });
    },

    /**
     * Makes the stanza, or finds it valid, from the stopped cluster's control file: offline it takes
     * milliseconds, where pgBackRest's own connection to a running server takes most of a second.
     */
    async ensureStanza(rt: InstanceRuntime, dataDir?: string) {
      await api.command(rt, ['stanza-create', '--no-online', ...(dataDir ? [`--pg1-path=${dataDir}`] : [])]);
    },

    async info(rt: InstanceRuntime): Promise<StanzaInfo | null> {
      const { stdout } = await api.command(rt, ['info', '--output=json']);
      const stanzas = JSON.parse(stdout) as StanzaInfo[];
      return stanzas.find((s) => s.name === stanza) ?? null;
    },

    /** Every WAL segment and history file the repository holds, oldest first. */
    async archived(rt: InstanceRuntime): Promise<ArchivedFile[]> {
      const { stdout } = await api.command(rt, ['repo-ls', '--recurse', '--output=json', `archive/${stanza}`]);
      const listing = JSON.parse(stdout) as Record<string, { type: string; size?: number; time?: number }>;
      const found: ArchivedFile[] = [];
      for (const [relative, entry] of Object.entries(listing)) {
        if (entry.type !== 'file') continue;
        const parts = relative.split('/');
        const name = parts[parts.length - 1];
        const segment = /^([0-9A-F]{24})-[0-9a-f]{40}/.exec(name)?.[1] ?? /^([0-9A-F]{8}\.history)/.exec(name)?.[1];
        if (!segment) continue;
        found.push({ name: segment, archiveId: parts[0], bytes: entry.size ?? 0, time: entry.time ?? 0 });
      }
      return found.sort((a, b) => a.name.localeCompare(b.name));
    },

    /**
     * A physical backup of the running instance. `progress` hears the share done, in percent, as
     * pgBackRest writes it into its backup lock (read four times a second: a file read, where its
     * info command is a confined process, and in 2.45 tells only that a backup runs).
     */
    async backup(rt: InstanceRuntime, kind: PhysicalBackupKind, password: string, progress: (percent: number) => void, options: { fromStandby?: boolean } = {}) {
      let finished = false;
      let wake: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (wake = resolve));
      const lockFile = path.join(files(rt).locks, `${stanza}-backup.lock`);
      let last = -1;
      const watch = (async () => {
        while (!finished) {
          // Woken at once when the backup ends, rather than after the rest of its pause.
          await Promise.race([new Promise((resolve) => setTimeout(resolve, 250)), ended]);
          if (finished) break;
          const done = backupLockPercent(lockFile);
          if (done !== null && done !== last) progress((last = done));
        }
      })();
      try {
        await api.command(rt, ['backup', `--type=${kind}`, ...(options.fromStandby ? ['--backup-standby'] : [])], { password, timeoutMs: 12 * 60 * 60_000 });
      } finally {
        finished = true;
        wake();
        await watch;
      }
    },

    /** Removes backups and WAL the window no longer needs (pgBackRest keeps the newest full backup whatever its age). */
    async expire(rt: InstanceRuntime) {
      await api.command(rt, ['expire'], { timeoutMs: 60 * 60_000 });
    },

    /** Checks every file of the repository against its checksum. */
    async verify(rt: InstanceRuntime) {
      return api.command(rt, ['verify'], { timeoutMs: 60 * 60_000 });
    },

    /** The repository goes with its instance: a local folder is removed, a bucket's stanza deleted. */
    async remove(rt: InstanceRuntime) {
      if (repository.kind === 'local') {
        fs.rmSync(repoPath(rt), { recursive: true, force: true });
        return;
      }
      if (!fs.existsSync(files(rt).conf)) return;
      await api.command(rt, ['stop']).catch(() => undefined);
      await api.command(rt, ['stanza-delete', '--force']).catch(() => undefined);
    },
  };
  return api;
}

/** The share of a running backup done, in percent, from pgBackRest's backup lock (`pctCplt`, in hundredths); null before it says. */
export function backupLockPercent(lockFile: string): number | null {
  let text: string;
  try {
    const fd = fs.openSync(lockFile, 'r');
    try {
      const buffer = Buffer.alloc(4096);
      text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  const match = /"pctCplt"\s*:\s*(\d{1,5})\b/.exec(text);
  if (!match) return null;
  const hundredths = Number(match[1]);
  return hundredths <= 10_000 ? hundredths / 100 : null;
}
