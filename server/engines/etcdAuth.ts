import fs from 'node:fs';
import path from 'node:path';
import { etcdOwnerUser } from '../../contracts/instances';
import type { InstanceRuntime } from './engine';
import { disableAuthInBackend } from './etcdBackendFile';
import { newPassword, writeSecret } from './pgRoles';
import { EngineError } from './processRunner';

// Authentication of an etcd instance (DESIGN §11), as pg's roles have it: a root user only the
// control plane uses, and an owner user people get, whose role reads and writes the whole keyspace
// and nothing else (no users, roles, auth switch or snapshots). Their passwords are kept 0600 in the
// instance folder. Users are managed over etcd's JSON gateway on loopback, so no password is ever on
// a command line; etcdctl gets its credentials through its environment.

const rootUser = 'root';
/** The owner's role, named like the owner. */
const ownerRole = etcdOwnerUser;
/** The whole keyspace as a permission: from "\0" (the first key there can be) with no end. */
const everyKey = Buffer.from([0]).toString('base64');

const secrets = (rt: Pick<InstanceRuntime, 'dir'>) => ({
  root: path.join(rt.dir, 'root.password'),
  /** A clone's copy of its source's root password, until its first start replaces it. */
  previousRoot: path.join(rt.dir, 'root.password.previous'),
  owner: path.join(rt.dir, 'owner.password'),
});

function readSecret(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function secretOrNew(file: string): string {
  const kept = readSecret(file);
  if (kept !== null) return kept;
  const made = newPassword();
  writeSecret(file, made);
  return made;
}

/** The owner's password; null before the first start made it. */
export const etcdOwnerPassword = (rt: Pick<InstanceRuntime, 'dir'>) => readSecret(secrets(rt).owner);

/** etcdctl's environment for `user`: the API version and, once the password exists, the credentials. */
function etcdctlEnv(user: string, password: string | null): Record<string, string> {
  return { ETCDCTL_API: '3', ...(password !== null && { ETCDCTL_USER: user, ETCDCTL_PASSWORD: password }) };
}

/** etcdctl as the control plane (snapshots, counts): the root user. */
export const etcdRootEnv = (rt: Pick<InstanceRuntime, 'dir'>) => etcdctlEnv(rootUser, readSecret(secrets(rt).root));

/** etcdctl as people (a script's commands): the owner user. */
export const etcdOwnerEnv = (rt: Pick<InstanceRuntime, 'dir'>) => etcdctlEnv(etcdOwnerUser, etcdOwnerPassword(rt));

/** What etcd answered: its message and gRPC code. */
class EtcdRefusal extends EngineError {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** gRPC codes and messages etcd answers (etcdserver/api/v3rpc/rpctypes). */
const failedPrecondition = 9;
const notEnabled = (e: unknown) => e instanceof EtcdRefusal && /authentication is not enabled/.test(e.message);
const badPassword = (e: unknown) => e instanceof EtcdRefusal && /invalid user ID or password/.test(e.message);
const notFound = (e: unknown) => e instanceof EtcdRefusal && e.code === failedPrecondition && /not found/.test(e.message);
const exists = (e: unknown) => e instanceof EtcdRefusal && e.code === failedPrecondition && /already exists/.test(e.message);

/** One call to etcd's JSON gateway (the v3 API over HTTP), as the holder of `token` if given. */
async function gateway<T>(rt: InstanceRuntime, call: string, body: object, token?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${rt.port}/v3/${call}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: token }) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new EngineError(`etcd did not answer: ${(error as Error).message}`);
  }
  const answer = (await res.json().catch(() => ({}))) as T & { error?: string; code?: number };
  if (!res.ok || answer.error) throw new EtcdRefusal(answer.error ?? `etcd answered ${res.status} to ${call}`, answer.code ?? 0);
  return answer;
}

async function logIn(rt: InstanceRuntime, user: string, password: string): Promise<string> {
  return (await gateway<{ token: string }>(rt, 'auth/authenticate', { name: user, password })).token;
}

/** Makes `user` exist with `password`, whatever it had. */
async function setUser(rt: InstanceRuntime, user: string, password: string, token?: string) {
  try {
    await gateway(rt, 'auth/user/changepw', { name: user, password }, token);
  } catch (error) {
    if (!notFound(error)) throw error;
    await gateway(rt, 'auth/user/add', { name: user, password }, token);
  }
}

/**
 * A root session, or null when auth is off. A clone's data holds its source's root password, kept
 * in `previousRoot`: it is used once to give root this instance's own.
 */
async function rootSession(rt: InstanceRuntime, password: string): Promise<string | null> {
  const { previousRoot } = secrets(rt);
  const previous = readSecret(previousRoot);
  let token: string | null;
  try {
    token = await logIn(rt, rootUser, password);
  } catch (error) {
    if (notEnabled(error)) token = null;
    else if (badPassword(error) && previous !== null) {
      await gateway(rt, 'auth/user/changepw', { name: rootUser, password }, await logIn(rt, rootUser, previous));
      token = await logIn(rt, rootUser, password);
    } else if (badPassword(error)) {
      throw new EngineError('etcd refuses the root password kept in the instance folder (root.password).');
    } else throw error;
  }
  fs.rmSync(previousRoot, { force: true });
  return token;
}

/**
 * Only Warden is root: users made while auth was off (by anyone on the host) lose the root role.
 * With auth on, only root can grant it, so this is needed once, when auth is turned on.
 */
async function revokeRootFromOthers(rt: InstanceRuntime, token: string) {
  const { users = [] } = await gateway<{ users?: string[] }>(rt, 'auth/user/list', {}, token);
  for (const user of users.filter((u) => u !== rootUser)) {
    const { roles = [] } = await gateway<{ roles?: string[] }>(rt, 'auth/user/get', { name: user }, token);
    if (roles.includes('root')) await gateway(rt, 'auth/user/revoke', { name: user, role: 'root' }, token);
  }
}

/** The owner: this instance's password, its own role with read and write on every key, and no other role (never root). */
async function ensureOwner(rt: InstanceRuntime, token: string, password: string) {
  try {
    await gateway(rt, 'auth/role/add', { name: ownerRole }, token);
  } catch (error) {
    if (!exists(error)) throw error;
  }
  const { perm = [] } = await gateway<{ perm?: { permType?: string; key?: string; range_end?: string }[] }>(rt, 'auth/role/get', { role: ownerRole }, token);
  if (!perm.some((p) => p.permType === 'READWRITE' && p.key === everyKey && p.range_end === everyKey)) {
    await gateway(rt, 'auth/role/grant', { name: ownerRole, perm: { permType: 'READWRITE', key: everyKey, range_end: everyKey } }, token);
  }
  await setUser(rt, etcdOwnerUser, password, token);
  const { roles = [] } = await gateway<{ roles?: string[] }>(rt, 'auth/user/get', { name: etcdOwnerUser }, token);
  for (const role of roles.filter((r) => r !== ownerRole)) await gateway(rt, 'auth/user/revoke', { name: etcdOwnerUser, role }, token);
  if (!roles.includes(ownerRole)) await gateway(rt, 'auth/user/grant', { user: etcdOwnerUser, role: ownerRole }, token);
}

/**
 * After every start: auth on, root with this instance's password, the owner as ensureOwner says.
 * Makes the passwords at the first start, so an instance that ran without auth gets it at its next
 * start, and a clone or a restore never shares its source's.
 */
export async function ensureEtcdAuth(rt: InstanceRuntime): Promise<void> {
  const { root, owner } = secrets(rt);
  const rootPassword = secretOrNew(root);
  const ownerPassword = secretOrNew(owner);
  let token = await rootSession(rt, rootPassword);
  if (token === null) {
    // Root first and auth on at once: the owner is set up behind auth.
    await setUser(rt, rootUser, rootPassword);
    await gateway(rt, 'auth/user/grant', { user: rootUser, role: 'root' });
    await gateway(rt, 'auth/enable', {});
    token = await logIn(rt, rootUser, rootPassword);
    await revokeRootFromOthers(rt, token);
  }
  await ensureOwner(rt, token, ownerPassword);
}

/** A new owner password: set in etcd first, then kept, so the file never names one that fails. */
export async function rotateEtcdOwnerPassword(rt: InstanceRuntime): Promise<string> {
  const rootPassword = readSecret(secrets(rt).root);
  if (rootPassword === null) throw new EngineError('The instance has no root password yet: start it once.');
  const password = newPassword();
  await gateway(rt, 'auth/user/changepw', { name: etcdOwnerUser, password }, await logIn(rt, rootUser, rootPassword));
  writeSecret(secrets(rt).owner, password);
  return password;
}

/**
 * Before a clone's first start: its data holds the source's users and passwords, so it keeps the
 * source's root password, which its first start uses once to give root a password of its own.
 */
export function giveCloneRoot(source: InstanceRuntime, target: InstanceRuntime) {
  const sourceRoot = readSecret(secrets(source).root);
  if (sourceRoot !== null) writeSecret(secrets(target).previousRoot, sourceRoot);
}

/**
 * Before a restored member's first start: a backup keeps the source's users but not their
 * passwords, so auth is turned off in its data for that start to set its own and turn it on again.
 */
export function turnAuthOffForFirstStart(dataDir: string) {
  disableAuthInBackend(path.join(dataDir, 'member', 'snap', 'db'));
}

/** The key after every key starting with `prefix` (etcd's range end of a prefix), base64 as the gateway wants it. */
function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 0xff) return Buffer.concat([bytes.subarray(0, i), Buffer.from([bytes[i] + 1])]).toString('base64');
  }
  return everyKey;
}

async function rootToken(rt: InstanceRuntime): Promise<string> {
  const rootPassword = readSecret(secrets(rt).root);
  if (rootPassword === null) throw new EngineError('The etcd instance has no root password yet: start it once.');
  return logIn(rt, rootUser, rootPassword);
}

/**
 * A user of another service (a PostgreSQL cluster's Patroni) with a role of its own name that may
 * read and write the keys under `prefix` and nothing else; its password is set to `password`.
 */
export async function ensureEtcdScopedUser(rt: InstanceRuntime, user: string, password: string, prefix: string): Promise<void> {
  const token = await rootToken(rt);
  try {
    await gateway(rt, 'auth/role/add', { name: user }, token);
  } catch (error) {
    if (!exists(error)) throw error;
  }
  const key = Buffer.from(prefix).toString('base64');
  await gateway(rt, 'auth/role/grant', { name: user, perm: { permType: 'READWRITE', key, range_end: prefixEnd(prefix) } }, token);
  await setUser(rt, user, password, token);
  await gateway(rt, 'auth/user/grant', { user, role: user }, token);
}

/** The user and role ensureEtcdScopedUser made, and the keys under its prefix. */
export async function removeEtcdScopedUser(rt: InstanceRuntime, user: string, prefix: string): Promise<void> {
  const token = await rootToken(rt);
  await gateway(rt, 'kv/deleterange', { key: Buffer.from(prefix).toString('base64'), range_end: prefixEnd(prefix) }, token);
  for (const [call, body] of [['auth/user/delete', { name: user }], ['auth/role/delete', { role: user }]] as const) {
    try {
      await gateway(rt, call, body, token);
    } catch (error) {
      if (!notFound(error)) throw error;
    }
  }
}

/** One call to etcd's JSON gateway on the member listening on `port`, as root (maintenance the owner may not do). */
export async function etcdRootCall<T>(rt: InstanceRuntime, port: number, call: string, body: object): Promise<T> {
  const member = { ...rt, port };
  const rootPassword = readSecret(secrets(rt).root);
  const token = rootPassword === null ? undefined : await logIn(member, rootUser, rootPassword).catch((error: unknown) => {
    // Auth not on yet (a first start under way): the call goes without a token.
    if (notEnabled(error)) return undefined;
    throw error;
  });
  return gateway<T>(member, call, body, token);
}
