// Who may set each engine parameter (DESIGN §11). One table per engine, read by the instances
// service before anything is validated or written.
import type { EngineType } from './engine';
import { amountOf } from './parameterValues';

/** user: any member of the instance's group; admin: admins only; managed: Warden sets it, nobody edits it. */
export type ParameterPolicy = 'user' | 'admin' | 'managed';

export interface PolicyEntry {
  policy: ParameterPolicy;
  /** Why it is not a user's to set, or why a user's bound (null for other user parameters). */
  reason: string | null;
  /** For a user parameter that can starve the host: the range a member may set, an admin beyond. */
  bound?: MemberBound;
}

/** A member's range of a parameter, written as PostgreSQL reads values of it (`256MB`, `0`). */
export interface MemberBound {
  /** The parameter's unit in pg_settings: what a plain number counts. */
  unit: string | null;
  min?: string;
  max?: string;
}

type TableEntry = { policy: Exclude<ParameterPolicy, 'user'>; reason: string } | { policy: 'user'; reason: string; bound: MemberBound };

const runsProgram = 'it runs a shell command as the engine account';
const loadsLibrary = 'it loads code into the server';
const namesFile = 'it names a file or folder on the host';
const network = 'Warden assigns the address and port the instance listens on';
const logging = "Warden reads the instance's logs from the files it configures";
const recovery = 'recovery and replication are run by Warden (clones and restores)';
const authentication = 'it changes how clients authenticate';
const tls = 'TLS is configured by Warden';
const takesMemory = (who: string) => `${who} may take this much, which can starve the host of memory`;
const sharedAtStart = 'the server sizes its shared memory by it when it starts';

/** PostgreSQL 15: every parameter that is not a user's, or is a user's within a bound, with a one-line reason. Unlisted ones are `user`. */
export const pgPolicyTable: Record<string, TableEntry> = {
  // Runs a program.
  archive_command: { policy: 'managed', reason: runsProgram },
  archive_cleanup_command: { policy: 'managed', reason: runsProgram },
  restore_command: { policy: 'managed', reason: runsProgram },
  recovery_end_command: { policy: 'managed', reason: runsProgram },
  ssl_passphrase_command: { policy: 'managed', reason: runsProgram },
  ssl_passphrase_command_supports_reload: { policy: 'managed', reason: tls },
  archive_mode: { policy: 'managed', reason: 'WAL archiving runs a command or library Warden must choose' },
  // Loads a library: only from PostgreSQL's own library folder, which Warden does not let anyone move.
  archive_library: { policy: 'managed', reason: loadsLibrary },
  shared_preload_libraries: { policy: 'admin', reason: loadsLibrary },
  session_preload_libraries: { policy: 'admin', reason: loadsLibrary },
  local_preload_libraries: { policy: 'admin', reason: loadsLibrary },
  dynamic_library_path: { policy: 'managed', reason: loadsLibrary },
  // Settings of libraries PostgreSQL ships that run a program or name a folder, once loaded.
  'basebackup_to_shell.command': { policy: 'managed', reason: runsProgram },
  'basebackup_to_shell.required_role': { policy: 'managed', reason: runsProgram },
  'basic_archive.archive_directory': { policy: 'managed', reason: namesFile },
  extension_destdir: { policy: 'managed', reason: loadsLibrary },
  jit_provider: { policy: 'managed', reason: loadsLibrary },
  // Names a file, folder, socket, port or address.
  data_directory: { policy: 'managed', reason: namesFile },
  config_file: { policy: 'managed', reason: namesFile },
  hba_file: { policy: 'managed', reason: namesFile },
  ident_file: { policy: 'managed', reason: namesFile },
  external_pid_file: { policy: 'managed', reason: namesFile },
  krb_server_keyfile: { policy: 'managed', reason: namesFile },
  promote_trigger_file: { policy: 'managed', reason: namesFile },
  timezone_abbreviations: { policy: 'managed', reason: namesFile },
  jit_dump_bitcode: { policy: 'managed', reason: 'it writes files into the data folder' },
  event_source: { policy: 'managed', reason: logging },
  port: { policy: 'managed', reason: network },
  listen_addresses: { policy: 'managed', reason: network },
  unix_socket_directories: { policy: 'managed', reason: namesFile },
  unix_socket_group: { policy: 'managed', reason: namesFile },
  unix_socket_permissions: { policy: 'managed', reason: namesFile },
  bonjour: { policy: 'managed', reason: network },
  bonjour_name: { policy: 'managed', reason: network },
  // Logging: Warden tails the JSON files it configures.
  logging_collector: { policy: 'managed', reason: logging },
  log_destination: { policy: 'managed', reason: logging },
  log_directory: { policy: 'managed', reason: namesFile },
  log_filename: { policy: 'managed', reason: namesFile },
  log_file_mode: { policy: 'managed', reason: logging },
  log_rotation_age: { policy: 'managed', reason: logging },
  log_rotation_size: { policy: 'managed', reason: logging },
  log_truncate_on_rotation: { policy: 'managed', reason: logging },
  syslog_facility: { policy: 'managed', reason: logging },
  syslog_ident: { policy: 'managed', reason: logging },
  syslog_sequence_numbers: { policy: 'managed', reason: logging },
  syslog_split_messages: { policy: 'managed', reason: logging },
  lc_messages: { policy: 'managed', reason: logging },
  // Recovery and replication: clones and restores depend on them.
  primary_conninfo: { policy: 'managed', reason: recovery },
  primary_slot_name: { policy: 'managed', reason: recovery },
  recovery_target: { policy: 'managed', reason: recovery },
  recovery_target_action: { policy: 'managed', reason: recovery },
  recovery_target_inclusive: { policy: 'managed', reason: recovery },
  recovery_target_lsn: { policy: 'managed', reason: recovery },
  recovery_target_name: { policy: 'managed', reason: recovery },
  recovery_target_time: { policy: 'managed', reason: recovery },
  recovery_target_timeline: { policy: 'managed', reason: recovery },
  recovery_target_xid: { policy: 'managed', reason: recovery },
  recovery_min_apply_delay: { policy: 'managed', reason: recovery },
  hot_standby: { policy: 'managed', reason: recovery },
  wal_level: { policy: 'managed', reason: 'clones copy the running instance through replication, which needs replica WAL' },
  max_wal_senders: { policy: 'managed', reason: 'clones copy the running instance through replication' },
  restart_after_crash: { policy: 'managed', reason: 'Warden supervises the instance and restarts it' },
  // Authentication and TLS.
  ssl: { policy: 'managed', reason: tls },
  ssl_ca_file: { policy: 'managed', reason: namesFile },
  ssl_cert_file: { policy: 'managed', reason: namesFile },
  ssl_crl_file: { policy: 'managed', reason: namesFile },
  ssl_crl_dir: { policy: 'managed', reason: namesFile },
  ssl_dh_params_file: { policy: 'managed', reason: namesFile },
  ssl_key_file: { policy: 'managed', reason: namesFile },
  ssl_ciphers: { policy: 'managed', reason: tls },
  ssl_ecdh_curve: { policy: 'managed', reason: tls },
  ssl_min_protocol_version: { policy: 'managed', reason: tls },
  ssl_max_protocol_version: { policy: 'managed', reason: tls },
  ssl_prefer_server_ciphers: { policy: 'managed', reason: tls },
  krb_caseins_users: { policy: 'managed', reason: authentication },
  db_user_namespace: { policy: 'managed', reason: authentication },
  password_encryption: { policy: 'managed', reason: authentication },
  // Admin: can starve the host, weaken durability or bypass integrity checks.
  fsync: { policy: 'admin', reason: 'turning it off can lose or corrupt data on a crash' },
  full_page_writes: { policy: 'admin', reason: 'turning it off can corrupt data on a crash' },
  synchronous_commit: { policy: 'admin', reason: 'it can give up durability of committed transactions' },
  wal_sync_method: { policy: 'admin', reason: 'a wrong method can lose committed data' },
  data_sync_retry: { policy: 'admin', reason: 'it can hide lost writes' },
  synchronous_standby_names: { policy: 'admin', reason: 'without standbys every commit would wait forever' },
  zero_damaged_pages: { policy: 'admin', reason: 'it destroys data on damaged pages' },
  ignore_checksum_failure: { policy: 'admin', reason: 'it hides data corruption' },
  ignore_invalid_pages: { policy: 'admin', reason: 'it hides data corruption' },
  ignore_system_indexes: { policy: 'admin', reason: 'it can damage the catalog' },
  allow_system_table_mods: { policy: 'admin', reason: 'it can damage the catalog' },
  allow_in_place_tablespaces: { policy: 'admin', reason: 'it is a developer option' },
  lo_compat_privileges: { policy: 'admin', reason: 'it turns off access checks on large objects' },
  session_replication_role: { policy: 'admin', reason: 'it turns off triggers and foreign-key checks' },
  exit_on_error: { policy: 'admin', reason: 'any error ends the session' },
  huge_pages: { policy: 'admin', reason: 'a wrong value stops the instance from starting' },
  shared_memory_type: { policy: 'admin', reason: 'it changes how the host shares memory' },
  dynamic_shared_memory_type: { policy: 'admin', reason: 'it changes how the host shares memory' },
  max_files_per_process: { policy: 'admin', reason: 'it can exhaust the host\'s open files' },
  max_worker_processes: { policy: 'admin', reason: 'it can starve the host of processes' },
  autovacuum: { policy: 'admin', reason: 'turning it off lets tables bloat and transaction ids wrap around' },
  wal_consistency_checking: { policy: 'admin', reason: 'it is a developer option' },
  backtrace_functions: { policy: 'admin', reason: 'it is a developer option' },
  post_auth_delay: { policy: 'admin', reason: 'it is a developer option' },
  pre_auth_delay: { policy: 'admin', reason: 'it is a developer option' },
  jit_debugging_support: { policy: 'admin', reason: 'it is a developer option' },
  jit_profiling_support: { policy: 'admin', reason: 'it is a developer option' },
  // A member's within a bound, an admin's beyond: memory per operation, disk, shared memory and processes.
  work_mem: { policy: 'user', reason: takesMemory('each sort and hash of every connection'), bound: { unit: 'kB', max: '256MB' } },
  hash_mem_multiplier: { policy: 'user', reason: 'hashes may take this many times work_mem, which can starve the host of memory', bound: { unit: null, max: '4' } },
  maintenance_work_mem: { policy: 'user', reason: takesMemory('each VACUUM and CREATE INDEX of every connection'), bound: { unit: 'kB', max: '1GB' } },
  autovacuum_work_mem: { policy: 'user', reason: takesMemory('each autovacuum worker'), bound: { unit: 'kB', max: '1GB' } },
  logical_decoding_work_mem: { policy: 'user', reason: takesMemory('each logical replication connection'), bound: { unit: 'kB', max: '1GB' } },
  temp_buffers: { policy: 'user', reason: takesMemory('the temporary tables of every connection'), bound: { unit: '8kB', max: '256MB' } },
  temp_file_limit: { policy: 'user', reason: 'temporary files share the host\'s disk (-1 is no limit)', bound: { unit: 'kB', min: '0', max: '100GB' } },
  max_locks_per_transaction: { policy: 'user', reason: sharedAtStart, bound: { unit: null, max: '1024' } },
  max_pred_locks_per_transaction: { policy: 'user', reason: sharedAtStart, bound: { unit: null, max: '1024' } },
  max_prepared_transactions: { policy: 'user', reason: sharedAtStart, bound: { unit: null, max: '1000' } },
  autovacuum_max_workers: { policy: 'user', reason: 'each worker is a process of its own, with its own memory', bound: { unit: null, max: '16' } },
};

/** Families by prefix: developer switches, never a tenant's. */
const pgAdminPrefixes = ['debug_', 'trace_'];

/** A library's own settings (`library.setting`) exist once an admin loads it; PL/pgSQL's are every database's. */
const isLibrarySetting = (name: string) => name.includes('.') && !name.startsWith('plpgsql.');

/** etcd 3.4: every flag Warden passes itself (paths, URLs, names, cluster, TLS, logging) is managed. */
export const etcdPolicyTable: Record<string, TableEntry> = {
  name: { policy: 'managed', reason: 'Warden names the member after the instance' },
  'data-dir': { policy: 'managed', reason: namesFile },
  'wal-dir': { policy: 'managed', reason: namesFile },
  'listen-client-urls': { policy: 'managed', reason: network },
  'listen-peer-urls': { policy: 'managed', reason: network },
  'advertise-client-urls': { policy: 'managed', reason: network },
  'initial-advertise-peer-urls': { policy: 'managed', reason: network },
  'listen-metrics-urls': { policy: 'managed', reason: network },
  'initial-cluster': { policy: 'managed', reason: 'Warden runs each instance as a single member' },
  'initial-cluster-state': { policy: 'managed', reason: 'Warden runs each instance as a single member' },
  'initial-cluster-token': { policy: 'managed', reason: 'Warden runs each instance as a single member' },
  discovery: { policy: 'managed', reason: network },
  'discovery-srv': { policy: 'managed', reason: network },
  'discovery-proxy': { policy: 'managed', reason: network },
  'force-new-cluster': { policy: 'managed', reason: 'it rewrites cluster membership' },
  logger: { policy: 'managed', reason: logging },
  'log-outputs': { policy: 'managed', reason: logging },
  'cert-file': { policy: 'managed', reason: namesFile },
  'key-file': { policy: 'managed', reason: namesFile },
  'trusted-ca-file': { policy: 'managed', reason: namesFile },
  'peer-cert-file': { policy: 'managed', reason: namesFile },
  'peer-key-file': { policy: 'managed', reason: namesFile },
  'peer-trusted-ca-file': { policy: 'managed', reason: namesFile },
  'client-cert-auth': { policy: 'managed', reason: authentication },
  'peer-client-cert-auth': { policy: 'managed', reason: authentication },
  'auto-tls': { policy: 'managed', reason: tls },
  'peer-auto-tls': { policy: 'managed', reason: tls },
  'enable-pprof': { policy: 'managed', reason: 'it exposes profiling endpoints' },
  'quota-backend-bytes': { policy: 'admin', reason: 'it decides how much disk the instance may take' },
};

/** The policy of one parameter of an engine; anything not listed is a user's to set. */
export function parameterPolicy(type: EngineType, name: string): PolicyEntry {
  const table = type === 'pg' ? pgPolicyTable : etcdPolicyTable;
  const entry = Object.hasOwn(table, name) ? table[name] : undefined;
  if (entry) return entry;
  if (type === 'pg' && pgAdminPrefixes.some((prefix) => name.startsWith(prefix))) return { policy: 'admin', reason: 'it is a developer option' };
  if (type === 'pg' && isLibrarySetting(name)) return { policy: 'admin', reason: 'it configures a library an admin loaded into the server' };
  return { policy: 'user', reason: null };
}

/** Whether a caller of this role may set a parameter of this policy through the API. */
export function mayEdit(policy: ParameterPolicy, isAdmin: boolean): boolean {
  return policy === 'user' || (policy === 'admin' && isAdmin);
}

/** Why the caller may not set a parameter, or null when they may. */
export function refusal(type: EngineType, name: string, isAdmin: boolean): string | null {
  const { policy, reason } = parameterPolicy(type, name);
  if (mayEdit(policy, isAdmin)) return null;
  return policy === 'managed' ? `${name} is managed by Warden: ${reason}.` : `Only an admin may set ${name}: ${reason}.`;
}

/** The range a member may set a bounded parameter to, in the parameter's unit; null for an admin or an unbounded parameter. */
export function memberRange(type: EngineType, name: string, isAdmin: boolean): { min: number | null; max: number | null } | null {
  const { bound } = parameterPolicy(type, name);
  if (isAdmin || !bound) return null;
  const amount = (limit: string | undefined) => {
    const number = limit === undefined ? null : amountOf(name, limit, bound.unit, { units: true, integer: false });
    return typeof number === 'number' ? number : null;
  };
  return { min: amount(bound.min), max: amount(bound.max) };
}

/** A parameter's limits as the caller may set it: a member's bound where it is tighter than the engine's. */
export function limitsFor(type: EngineType, parameter: { name: string; min: number | null; max: number | null }, isAdmin: boolean) {
  const range = memberRange(type, parameter.name, isAdmin);
  const { min, max } = parameter;
  return {
    min: range?.min != null && (min === null || range.min > min) ? range.min : min,
    max: range?.max != null && (max === null || range.max < max) ? range.max : max,
  };
}

/** Why a member may not set a bounded parameter to this value, or null (also for a value that is no number: the value checks say why). */
function boundRefusal(type: EngineType, name: string, value: string, isAdmin: boolean): string | null {
  const range = memberRange(type, name, isAdmin);
  const { bound, reason } = parameterPolicy(type, name);
  if (!range || !bound) return null;
  const number = amountOf(name, value, bound.unit, { units: true, integer: false });
  if (typeof number !== 'number') return null;
  if ((range.min === null || number >= range.min) && (range.max === null || number <= range.max)) return null;
  const span = bound.min === undefined ? `up to ${bound.max}` : bound.max === undefined ? `from ${bound.min}` : `from ${bound.min} to ${bound.max}`;
  return `A member may set ${name} ${span}, an admin beyond: ${reason}.`;
}

/** Per-parameter refusals for a set of changes; empty when the caller may set all of them. */
export function policyErrors(type: EngineType, changes: Record<string, string>, isAdmin: boolean): Record<string, string[]> {
  const errors: [string, string[]][] = [];
  for (const [name, value] of Object.entries(changes)) {
    const why = refusal(type, name, isAdmin) ?? boundRefusal(type, name, value, isAdmin);
    if (why) errors.push([name, [why]]);
  }
  return Object.fromEntries(errors);
}
