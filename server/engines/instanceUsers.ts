// Every instance's own system user (DESIGN §11): made on first use, given its folder, its processes
// ended and its leftovers removed before it goes.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { processUids, type ProcessLimits } from './confinement';
import { EngineError, isAlive } from './processRunner';

/**
 * The OS account an instance's engine processes run as. A root server gives every instance its own
 * system user (DESIGN §11), so one compromised instance cannot read another's files; null means the
 * server's own user (a server that is not root runs everything as itself).
 */
export interface EngineUser {
  uid: number;
  gid: number;
  name: string;
  /** The instance folder: what its confined processes may write (confinement.ts). */
  dir?: string;
  limits?: ProcessLimits;
}

const isRoot = () => process.getuid?.() === 0;
// useradd and userdel live in /usr/sbin, which a service's PATH may lack.
const adminEnv = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };
const uuidLike = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;

/**
 * The system user name of an instance: `warden-` and the first 12 hex digits of its id (a UUID), so
 * an operator can tell whose processes they are; any other id (a scratch instance) is hashed.
 * Always 19 characters of [a-z0-9-], valid for useradd.
 */
export function instanceUserName(id: string): string {
  const hex = uuidLike.test(id) ? id.replace(/-/g, '').slice(0, 12).toLowerCase() : createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `warden-${hex}`;
}

interface PasswdEntry extends EngineUser {
  comment: string;
}

function passwd(name: string): PasswdEntry | null {
  try {
    const [, , uid, gid, comment] = execFileSync('getent', ['passwd', name], { env: adminEnv }).toString().trim().split(':');
    return { name, uid: Number(uid), gid: Number(gid), comment };
  } catch {
    return null;
  }
}

const instanceUsers = new Map<string, EngineUser>();
const ownerComment = (id: string) => `Warden instance ${id}`;

/** The instance's own system user, created on first use (root only). */
function ensureInstanceUser(id: string): EngineUser {
  const known = instanceUsers.get(id);
  if (known) return known;
  const name = instanceUserName(id);
  let entry = passwd(name);
  if (!entry) {
    try {
      execFileSync(
        'useradd',
        ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', '--comment', ownerComment(id), name],
        { env: adminEnv, stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (error) {
      throw new EngineError(`The system user ${name} for the instance could not be created: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
    }
    entry = passwd(name);
    if (!entry) throw new EngineError(`The system user ${name} was created but cannot be found.`);
  }
  // Names are short hashes: a user of that name made for anything else is never taken over.
  if (entry.comment !== ownerComment(id)) {
    throw new EngineError(`The system user ${name} exists and does not belong to this instance (its comment is "${entry.comment}"): remove or rename it.`);
  }
  const user = { uid: entry.uid, gid: entry.gid, name };
  instanceUsers.set(id, user);
  return user;
}

let legacy: EngineUser | null | undefined;

/** The single `postgres` user that ran every instance before instances had their own users. */
function legacyUser(): EngineUser | null {
  if (legacy === undefined) legacy = passwd('postgres');
  return legacy ? { uid: legacy.uid, gid: legacy.gid, name: legacy.name } : null;
}

/** The legacy user when it still owns the instance's data folder (not migrated yet), else null. */
function legacyOwner(dir: string): EngineUser | null {
  const old = legacyUser();
  if (!old) return null;
  try {
    return fs.statSync(path.join(dir, 'data')).uid === old.uid ? old : null;
  } catch {
    return null;
  }
}

/**
 * Who runs an instance's engine and tools: its own system user, created on first use, or null when
 * the server is not root. An instance made before per-instance users keeps `postgres` (which owns
 * its files and may still run its engine) until `migrateInstanceFolder` hands it over at a start.
 */
export function instanceUser(rt: RuntimeLike): EngineUser | null {
  if (!isRoot()) return null;
  return within(rt, legacyOwner(rt.dir) ?? ensureInstanceUser(rt.id));
}

/** What instanceUser needs of an instance. */
interface RuntimeLike {
  id: string;
  dir: string;
}

/** The user as one instance's processes run: confined to that instance's folder (its limits are kept beside it, confinement.ts). */
const within = (rt: RuntimeLike, user: EngineUser): EngineUser => ({ ...user, dir: rt.dir });

/**
 * The user an existing instance runs as, without creating one: for work on an instance that has
 * run (a backup's staging folder), where a missing user means there is nothing of its own to serve.
 */
export function existingInstanceUser(rt: RuntimeLike): EngineUser | null {
  if (!isRoot()) return null;
  const legacyRun = legacyOwner(rt.dir);
  if (legacyRun) return within(rt, legacyRun);
  const known = instanceUsers.get(rt.id);
  if (known) return within(rt, known);
  const entry = passwd(instanceUserName(rt.id));
  return entry && entry.comment === ownerComment(rt.id) ? within(rt, ensureInstanceUser(rt.id)) : null;
}

/**
 * Gives a stopped instance's folder to its own user when another owns its data: `postgres` (an
 * instance made before per-instance users), or a user removed and made again with a new uid. What
 * that owner had becomes the instance user's (root's secrets stay root's), the data folder last so an
 * interrupted migration is finished by the next start. Answers whether anything moved.
 */
export function migrateInstanceFolder(rt: { id: string; dir: string }): boolean {
  if (!isRoot()) return false;
  const data = path.join(rt.dir, 'data');
  let previous: number;
  try {
    previous = fs.statSync(data).uid;
  } catch {
    return false;
  }
  const user = ensureInstanceUser(rt.id);
  if (previous === user.uid || previous === 0) return false;
  for (const entry of fs.readdirSync(rt.dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (file !== data && fs.lstatSync(file).uid === previous) fs.lchownSync(file, user.uid, user.gid);
  }
  fs.chownSync(rt.dir, user.uid, user.gid);
  fs.chmodSync(rt.dir, 0o700);
  fs.chownSync(data, user.uid, user.gid);
  return true;
}

/** The pids of every process that runs as `uid` (any of its real, effective, saved or file-system ids). */
export function processesOf(uid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => processUids(pid).includes(uid));
}

/**
 * Ends every process of `uid` with SIGKILL, again until none is left (one may fork while another is
 * killed), so a removal never fails on a process a tenant left running in the background.
 */
export async function killProcessesOf(uid: number): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = processesOf(uid).filter(isAlive);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new EngineError(`Processes of user ${uid} are still running after being killed.`);
}

/**
 * Ends whatever the instance's own user still runs while its engine is down, before the engine
 * starts again: a postmaster killed with SIGKILL leaves its backends behind, attached to shared
 * memory PostgreSQL would no longer see (each start has an IPC namespace of its own), so its
 * interlock against two servers on one data folder could not find them. Never the shared legacy user.
 */
export async function endLeftovers(rt: RuntimeLike): Promise<void> {
  const user = instanceUser(rt);
  if (user && user.name === instanceUserName(rt.id)) await killProcessesOf(user.uid);
}

/** The host's folders any user may write: a removed instance's user leaves nothing there. */
const sharedWritable = ['/tmp', '/var/tmp', '/dev/shm', '/dev/mqueue'];

/** Removes what `uid` owns in the shared writable folders (an unconfined tool could write there). */
function removeFilesOf(uid: number) {
  const roots = sharedWritable.filter((root) => fs.existsSync(root));
  // find's exit status is not 0 when it met something it could not remove; what it could is gone.
  spawnSync('find', [...roots, '-xdev', '-user', String(uid), '-delete'], { env: adminEnv, stdio: 'ignore', timeout: 60_000 });
}

/**
 * Removes an instance's system user once its folder is gone (no-op when not root or never made):
 * its processes are killed and its files in the shared folders removed first, so the next user
 * given the same uid inherits nothing.
 */
export async function removeInstanceUser(id: string): Promise<void> {
  instanceUsers.delete(id);
  if (!isRoot()) return;
  const name = instanceUserName(id);
  const entry = passwd(name);
  if (!entry || entry.comment !== ownerComment(id)) return;
  await killProcessesOf(entry.uid);
  removeFilesOf(entry.uid);
  try {
    execFileSync('userdel', [name], { env: adminEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new EngineError(`The system user ${name} could not be removed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
  }
}
