import type { Kysely } from 'kysely';
import type { Role } from '../../contracts/roles';

// Row types of the store. Booleans are 0/1 integers and timestamps ISO-8601 strings so the same
// columns work on SQLite and PostgreSQL; repositories turn rows into domain objects.

export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  /** Always lower case; unique. */
  email: string;
  password_hash: string;
  role: Role;
  email_confirmed: Flag;
  two_factor_enabled: Flag;
  two_factor_secret: string | null;
  access_failed_count: number;
  lockout_end: string | null;
  disabled: Flag;
  /** Changes whenever credentials change, so outstanding e-mail codes stop working. */
  security_stamp: string;
  created_at: string;
  last_login_at: string | null;
}

export type SessionKind = 'cookie' | 'access' | 'refresh';

export interface SessionsTable {
  /** sha256 hex of the token; the token itself is never stored. */
  id: string;
  user_id: string;
  kind: SessionKind;
  persistent: Flag;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  user_agent: string | null;
  ip: string | null;
}

export type AuditOutcome = 'success' | 'failure';

export interface AuditEntriesTable {
  id: string;
  at: string;
  user_id: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** JSON object text. */
  detail: string | null;
  ip: string | null;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  audit_entries: AuditEntriesTable;
}

export type Db = Kysely<Database>;
