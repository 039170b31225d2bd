// PostgreSQL's parameter catalogue (names, types, units, bounds, enum values, context) per release,
// so a parameter can be checked before any instance of that release has run. `postgres
// --describe-config` lacks units and enum values: the catalogue is read from pg_settings instead.
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigParameter } from './engine';
import { EngineError, giveToEngineUser, run, spawnTool } from './processRunner';
import { instanceUser, removeInstanceUser, type EngineUser } from './instanceUsers';

/** The settings a user can see and set (internal ones are compiled in), as pg_settings has them. */
export const settingsQuery =
  "select name, setting, boot_val, vartype, unit, min_val, max_val, enumvals, context, short_desc from pg_settings where context <> 'internal' order by name";

export interface SettingsRow {
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
}

export function parameterFromRow(row: SettingsRow): ConfigParameter {
  return {
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
  };
}

/** A catalogue entry holds the release's default as its value. */
const asCatalogue = (parameters: ConfigParameter[]) => parameters.map((p) => ({ ...p, value: p.default ?? '' }));

export interface PgCatalogueOptions {
  bin: (tool: string) => string;
  version: () => Promise<string>;
  /** Where `pg-<version>.json` is kept; without it there is no catalogue. */
  catalogDir?: string;
}

export interface PgCatalogue {
  /** The cached catalogue, built first when missing (once, however many callers wait for it). */
  load(): Promise<ConfigParameter[]>;
  /** Saves what a running instance reported when no catalogue is cached yet. */
  remember(live: ConfigParameter[]): Promise<void>;
}

export function pgCatalogue(options: PgCatalogueOptions): PgCatalogue {
  let building: Promise<ConfigParameter[]> | null = null;
  const file = async () => options.catalogDir && path.join(options.catalogDir, `pg-${await options.version()}.json`);

  async function buildAndSave(target: string, catalogDir: string): Promise<ConfigParameter[]> {
    const catalogue = asCatalogue(await buildCatalogue(options.bin, catalogDir));
    writeJson(target, catalogue);
    return catalogue;
  }

  return {
    async load() {
      const target = await file();
      if (!target || !options.catalogDir) {
        throw new EngineError('This server keeps no parameter catalogue: the parameters are read from the running server, so start it once first.');
      }
      const cached = readJson<ConfigParameter[]>(target);
      if (cached) return cached;
      building ??= buildAndSave(target, options.catalogDir).finally(() => (building = null));
      return building;
    },

    async remember(live) {
      const target = await file();
      if (!target || fs.existsSync(target)) return;
      writeJson(target, asCatalogue(live));
      // No build will run for this release now: clear what a build cut short by a crash left.
      if (options.catalogDir) await removeAbandonedBuilds(options.catalogDir);
    },
  };
}

const toolTimeoutMs = 120_000;
const buildPrefix = '.pg-catalogue-';
/** A build takes two tools at most, each cut off at the timeout: a folder older than this has no build left. */
const abandonedAfterMs = 3 * toolTimeoutMs;

/**
 * Removes what builds left behind when the server died during them (their folder and system user),
 * before the next build. Recent folders are left alone: another server on this data folder may be
 * building right now.
 */
export async function removeAbandonedBuilds(catalogDir: string, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = fs.readdirSync(catalogDir).filter((name) => name.startsWith(buildPrefix));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(catalogDir, name);
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || now - stat.mtimeMs < abandonedAfterMs) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    await removeInstanceUser(name);
    removed.push(name);
  }
  return removed;
}

/**
 * Reads pg_settings from a throwaway cluster: initdb into a hidden folder under `catalogDir`, run as
 * a system user of its own (like an instance: PostgreSQL refuses to run as root), one query through
 * single-user mode (no socket, no port), and the folder and user removed whatever happens.
 */
async function buildCatalogue(bin: (tool: string) => string, catalogDir: string): Promise<ConfigParameter[]> {
  fs.mkdirSync(catalogDir, { recursive: true, mode: 0o711 });
  await removeAbandonedBuilds(catalogDir);
  const dir = fs.mkdtempSync(path.join(catalogDir, buildPrefix));
  // The folder's random name makes the user unique too, so two servers building at once never share one.
  const rt = { id: path.basename(dir), dir };
  try {
    const user = instanceUser(rt);
    giveToEngineUser(user, dir);
    const data = path.join(dir, 'data');
    await run(user, bin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'], {
      timeoutMs: toolTimeoutMs,
    });
    return await singleUserSettings(user, bin('postgres'), data);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await removeInstanceUser(rt.id);
  }
}

/**
 * Runs the settings query in single-user mode. Its output prints each value between quotes with
 * no escaping, so the rows come back as one hex string of their JSON, which cannot hold a quote or
 * a line break of its own.
 */
function singleUserSettings(user: EngineUser | null, postgres: string, data: string): Promise<ConfigParameter[]> {
  const query = `select encode(convert_to(coalesce(json_agg(s)::text, '[]'), 'UTF8'), 'hex') as catalogue from (${settingsQuery}) s\n`;
  return new Promise((resolve, reject) => {
    const child = spawnTool(user, postgres, ['--single', '-D', data, '-F', 'postgres']);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), toolTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new EngineError(`postgres --single could not run: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const hex = /catalogue = "([0-9a-f]*)"/.exec(stdout)?.[1];
      if (code !== 0 || hex === undefined) {
        const words = (stderr || stdout).trim().split('\n').slice(-4).join('\n');
        return reject(new EngineError(`postgres --single failed (${signal ?? `exit ${code}`}): ${words}`));
      }
      resolve((JSON.parse(Buffer.from(hex, 'hex').toString('utf8')) as SettingsRow[]).map(parameterFromRow));
    });
    child.stdin.end(query);
  });
}

/** A JSON file's content, or null when it is missing or unreadable. */
export function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

function writeJson(file: string, value: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value));
  fs.renameSync(`${file}.tmp`, file);
}
