import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { EngineBinaries } from './detect';
import type { ApplyResult, ConfigParameter, Engine, EngineHealth, HealthCheck, InstanceRuntime, ReloadReport } from './engine';
import { EngineError, giveToEngineUser, isAlive, run } from './processRunner';

/** Settings Warden owns: changing them would cut the instance off from the console. */
export const pgManagedParameters = new Set([
  'port',
  'listen_addresses',
  'unix_socket_directories',
  'data_directory',
  'hba_file',
  'ident_file',
  'config_file',
  'logging_collector',
  'log_destination',
  'log_directory',
  'log_filename',
  'log_rotation_age',
  'log_rotation_size',
  'log_truncate_on_rotation',
  'log_file_mode',
]);

const paths = (rt: InstanceRuntime) => ({
  data: path.join(rt.dir, 'data'),
  socket: path.join(rt.dir, 'run'),
  logs: path.join(rt.dir, 'logs'),
  secret: path.join(rt.dir, 'superuser.password'),
});

/** The generated superuser password: in the instance folder, 0600, readable by the server only. */
export function pgSuperuserPassword(rt: InstanceRuntime): string {
  return fs.readFileSync(paths(rt).secret, 'utf8').trim();
}

function managedConf(rt: InstanceRuntime): string {
  const p = paths(rt);
  return [
    '# Managed by Warden: edit through the console (ALTER SYSTEM), not here.',
    `port = ${rt.port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${p.socket}'`,
    'logging_collector = on',
    "log_destination = 'jsonlog'",
    `log_directory = '${p.logs}'`,
    "log_filename = 'postgresql-%Y%m%d-%H%M%S.log'",
    'log_rotation_size = 100MB',
    '',
  ].join('\n');
}

function mkdirFor(dir: string, mode: number) {
  fs.mkdirSync(dir, { recursive: true, mode });
  fs.chmodSync(dir, mode);
  giveToEngineUser(dir);
}

/** PostgreSQL (Debian's postgresql 15) run with pg_ctl as the engine user, on a loopback port. */
export function pgEngine(binaries: EngineBinaries): Engine {
  const bin = (tool: string) => path.join(binaries.pgBinDir, tool);

  async function withClient<T>(rt: InstanceRuntime, use: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({
      host: paths(rt).socket,
      port: rt.port,
      user: 'postgres',
      database: 'postgres',
      password: pgSuperuserPassword(rt),
      connectionTimeoutMillis: 3000,
      statement_timeout: 10_000,
    });
    await client.connect();
    try {
      return await use(client);
    } finally {
      await client.end();
    }
  }

  const pid = (rt: InstanceRuntime): number | null => {
    try {
      const first = fs.readFileSync(path.join(paths(rt).data, 'postmaster.pid'), 'utf8').split('\n')[0];
      const value = Number(first);
      return Number.isInteger(value) && isAlive(value) ? value : null;
    } catch {
      return null;
    }
  };

  const pgCtl = (rt: InstanceRuntime, ...args: string[]) =>
    run(bin('pg_ctl'), ['-D', paths(rt).data, ...args], { timeoutMs: 90_000 });

  async function parameters(rt: InstanceRuntime): Promise<ConfigParameter[]> {
    const { rows } = await withClient(rt, (c) =>
      c.query<{
        name: string;
        setting: string;
        boot_val: string | null;
        vartype: ConfigParameter['type'];
        unit: string | null;
        min_val: string | null;
        max_val: string | null;
        enumvals: string[] | null;
        context: string;
        short_desc: string;
      }>(
        `select name, setting, boot_val, vartype, unit, min_val, max_val, enumvals, context, short_desc
           from pg_settings where context <> 'internal' order by name`,
      ),
    );
    return rows
      .filter((row) => !pgManagedParameters.has(row.name))
      .map((row) => ({
        name: row.name,
        value: row.setting,
        default: row.boot_val,
        type: row.vartype,
        unit: row.unit,
        min: row.min_val === null ? null : Number(row.min_val),
        max: row.max_val === null ? null : Number(row.max_val),
        enumValues: row.enumvals,
        apply: row.context === 'postmaster' ? 'restart' : 'reload',
        description: row.short_desc,
      }));
  }

  return {
    type: 'pg',

    async unavailable() {
      return fs.existsSync(bin('initdb'))
        ? null
        : `PostgreSQL is not installed at ${binaries.pgBinDir}: install the Debian package postgresql.`;
    },

    async version() {
      const { stdout } = await run(bin('postgres'), ['--version']);
      return /\(PostgreSQL\)\s+(\S+)/.exec(stdout)?.[1] ?? stdout.trim();
    },

    async initialize(rt, initialParameters = {}) {
      const p = paths(rt);
      // The engine user must traverse the instance folder but not read the secret in it.
      mkdirFor(rt.dir, 0o711);
      fs.chownSync(rt.dir, 0, 0);
      mkdirFor(p.data, 0o700);
      mkdirFor(p.socket, 0o700);
      mkdirFor(p.logs, 0o700);
      const password = randomBytes(24).toString('base64url');
      fs.writeFileSync(p.secret, `${password}\n`, { mode: 0o600 });
      const pwfile = path.join(p.socket, 'initdb.pw');
      fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
      giveToEngineUser(pwfile);
      try {
        await run(bin('initdb'), [
          '-D', p.data,
          '-U', 'postgres',
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '--data-checksums',
          '-E', 'UTF8',
          '--locale=C.UTF-8',
        ]);
      } finally {
        fs.rmSync(pwfile, { force: true });
      }
      const conf = path.join(p.data, 'postgresql.conf');
      fs.appendFileSync(conf, "\ninclude 'warden.conf'\n");
      fs.writeFileSync(path.join(p.data, 'warden.conf'), managedConf(rt));
      giveToEngineUser(path.join(p.data, 'warden.conf'));
      const extra = Object.entries(initialParameters).map(([name, value]) => `${name} = '${value.replace(/'/g, "''")}'`);
      if (extra.length > 0) fs.appendFileSync(path.join(p.data, 'postgresql.auto.conf'), `${extra.join('\n')}\n`);
    },

    async start(rt) {
      if (pid(rt) !== null) return;
      await pgCtl(rt, '-w', '-t', '60', '-l', path.join(paths(rt).logs, 'startup.log'), 'start');
    },

    async stop(rt) {
      if (pid(rt) === null) return;
      await pgCtl(rt, '-w', '-t', '60', '-m', 'fast', 'stop');
    },

    async restart(rt) {
      await pgCtl(rt, '-w', '-t', '60', '-m', 'fast', '-l', path.join(paths(rt).logs, 'startup.log'), 'restart');
    },

    async reload(rt): Promise<ReloadReport> {
      await pgCtl(rt, 'reload');
      // pg_ctl reload only signals; the postmaster reads the files a moment later.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return withClient(rt, async (c) => {
        const errors = await c.query<{ name: string; error: string }>(
          `select coalesce(name, sourcefile) as name, error from pg_file_settings where error is not null`,
        );
        const pending = await c.query<{ name: string }>(`select name from pg_settings where pending_restart order by name`);
        const pendingRestart = pending.rows.map((r) => r.name);
        // A restart-only change is listed in pg_file_settings as "could not be applied": that is pending, not wrong.
        const refused = errors.rows.filter((r) => !pendingRestart.includes(r.name));
        return { errors: refused.map((r) => ({ name: r.name, message: r.error })), pendingRestart };
      });
    },

    pid,

    async probe(rt): Promise<EngineHealth> {
      const checks: HealthCheck[] = [];
      const running = pid(rt) !== null;
      checks.push({ name: 'process', level: running ? 'good' : 'error', message: running ? 'postmaster is running' : 'postmaster is not running' });
      if (running) {
        try {
          const started = Date.now();
          const stats = await withClient(rt, async (c) => {
            const usage = await c.query<{ used: string; max: string }>(
              `select count(*)::text as used, current_setting('max_connections') as max from pg_stat_activity`,
            );
            const pending = await c.query<{ name: string }>(`select name from pg_settings where pending_restart`);
            return { ...usage.rows[0], pending: pending.rows.map((r) => r.name) };
          });
          checks.push({ name: 'connection', level: 'good', message: `answers queries (${Date.now() - started} ms)` });
          const ratio = Number(stats.used) / Number(stats.max);
          checks.push({
            name: 'connections',
            level: ratio > 0.9 ? 'warn' : 'good',
            message: `${stats.used} of ${stats.max} connections in use`,
          });
          if (stats.pending.length > 0) {
            checks.push({ name: 'pending restart', level: 'warn', message: `waiting for a restart: ${stats.pending.join(', ')}` });
          }
        } catch (error) {
          checks.push({ name: 'connection', level: 'error', message: `does not answer: ${(error as Error).message}` });
        }
      }
      const level = checks.some((c) => c.level === 'error') ? 'error' : checks.some((c) => c.level === 'warn') ? 'warn' : 'good';
      return { running: running && level !== 'error', level, checks };
    },

    parameters,

    async validate(rt, changes) {
      const known = new Map((await parameters(rt)).map((p) => [p.name, p]));
      const errors: Record<string, string[]> = {};
      for (const [name, value] of Object.entries(changes)) {
        const problem = pgManagedParameters.has(name) ? `${name} is managed by Warden.` : checkValue(known.get(name), name, value);
        if (problem) errors[name] = [problem];
      }
      return errors;
    },

    async apply(rt, changes): Promise<ApplyResult> {
      const known = new Map((await parameters(rt)).map((p) => [p.name, p]));
      const result: ApplyResult = { reload: [], restart: [] };
      await withClient(rt, async (c) => {
        for (const [name, value] of Object.entries(changes)) {
          // ALTER SYSTEM takes no bind parameters; the name was checked against pg_settings and the value is quoted.
          await c.query(`alter system set ${c.escapeIdentifier(name)} = ${c.escapeLiteral(value)}`);
          result[known.get(name)?.apply ?? 'restart'].push(name);
        }
      });
      return result;
    },

    logDir: (rt) => paths(rt).logs,

    async remove(rt) {
      if (pid(rt) !== null) throw new EngineError('The instance is running: stop it before removing it.');
      fs.rmSync(rt.dir, { recursive: true, force: true });
    },
  };
}

/** Checks one proposed value against pg_settings' metadata (type, bounds, enum values). */
export function checkValue(parameter: ConfigParameter | undefined, name: string, value: string): string | null {
  if (!parameter) return `Unknown parameter ${name}.`;
  switch (parameter.type) {
    case 'bool':
      return /^(on|off|true|false|yes|no|1|0)$/i.test(value) ? null : `${name} must be on or off.`;
    case 'integer':
    case 'real': {
      // Memory and time units are accepted as PostgreSQL accepts them (e.g. 128MB, 5min).
      const match = /^(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(value.trim());
      if (!match) return `${name} must be a number${parameter.unit ? ` (in ${parameter.unit})` : ''}.`;
      if (parameter.type === 'integer' && match[1].includes('.') && !match[2]) return `${name} must be a whole number.`;
      if (match[2]) return null; // PostgreSQL converts the unit; ALTER SYSTEM refuses what it cannot.
      const number = Number(match[1]);
      if (parameter.min !== null && number < parameter.min) return `${name} must be at least ${parameter.min}.`;
      if (parameter.max !== null && number > parameter.max) return `${name} must be at most ${parameter.max}.`;
      return null;
    }
    case 'enum':
      return parameter.enumValues?.includes(value) ? null : `${name} must be one of ${parameter.enumValues?.join(', ')}.`;
    default:
      return null;
  }
}
