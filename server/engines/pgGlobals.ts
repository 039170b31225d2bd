import type { Client } from 'pg';
import type { RestoreSkip } from '../../contracts/backups';
import { pgOwnerRole } from '../../contracts/databases';
import { checkNewRoleName, grantable, makeManagedRole, setRolePassword } from './pgRoles';

// The roles a database backup recorded (pg_dumpall --globals-only), made again in a fresh instance the
// way the roles API makes them (DESIGN §11). The file is never run as it is: it is read here statement
// by statement, and the superuser runs only statements it writes itself from the names and values
// read. A role gets LOGIN, its password hash, and what only restricts it (NOINHERIT, a connection
// limit, VALID UNTIL); memberships only among the owner role and the roles restored. Anything else
// (SUPERUSER and the other attributes, a membership in a predefined role, tablespaces, parameter
// privileges) is left out and reported. A role's parameter settings are applied by the role itself,
// so PostgreSQL allows only those the role could set.

/** A role as the backup recorded it. */
interface RecordedRole {
  name: string;
  login: boolean;
  /** The password's hash, kept as it is (PostgreSQL stores a hash it is given unchanged). */
  password: string | null;
  noInherit: boolean;
  connectionLimit: number | null;
  validUntil: string | null;
  /** Attributes a role made through Warden never has (SUPERUSER, CREATEROLE …) or that were not understood. */
  refused: string[];
}

export interface RecordedRoles {
  roles: RecordedRole[];
  memberships: { role: string; member: string; admin: boolean; what: string }[];
  /** ALTER ROLE … [IN DATABASE …] SET …, as written, to be run by the role itself. */
  settings: { role: string; statement: string; what: string }[];
  /** Statements that are none of the above. */
  skipped: RestoreSkip[];
}

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'symbol';
  /** A word as written, a quoted name or a string without its quotes. */
  value: string;
  start: number;
  end: number;
}

interface Statement {
  tokens: Token[];
  /** The statement as written, without its `;`. */
  text: string;
}

const wordAt = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const numberAt = /-?\d+/y;

/**
 * The statements of a pg_dumpall script (standard_conforming_strings on, as it sets): words, "names",
 * 'strings' (a doubled quote stands for itself) and numbers; comments and psql's backslash lines
 * (\restrict, \connect) are not statements.
 */
function statementsOf(sql: string): Statement[] {
  const statements: Statement[] = [];
  let tokens: Token[] = [];
  const close = () => {
    if (tokens.length > 0) statements.push({ tokens, text: sql.slice(tokens[0].start, tokens.at(-1)!.end) });
    tokens = [];
  };
  const skipLine = (from: number) => {
    const end = sql.indexOf('\n', from);
    return end === -1 ? sql.length : end;
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) i++;
    else if (sql.startsWith('--', i) || (c === '\\' && (i === 0 || sql[i - 1] === '\n'))) i = skipLine(i);
    else if (c === ';') {
      close();
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) {
        value += sql[j];
        j += sql[j] === c ? 2 : 1;
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', value, start: i, end: j + 1 });
      i = j + 1;
    } else {
      const pattern = /[-\d]/.test(c) ? numberAt : wordAt;
      pattern.lastIndex = i;
      const match = pattern.exec(sql);
      const value = match?.[0] ?? c;
      tokens.push({ kind: match ? (pattern === numberAt ? 'number' : 'word') : 'symbol', value, start: i, end: i + value.length });
      i += value.length;
    }
  }
  close();
  return statements;
}

const isWord = (token: Token | undefined, word: string) => token?.kind === 'word' && token.value.toUpperCase() === word;

/** A role's name as PostgreSQL reads it (an unquoted name folds to lower case), or null. */
const nameOf = (token: Token | undefined) => (token?.kind === 'word' ? token.value.toLowerCase() : token?.kind === 'quoted' ? token.value : null);

/** A statement as the operator is told of it: strings (a password's hash …) are not repeated. */
const described = (tokens: Token[]) =>
  tokens
    .map((t) => (t.kind === 'string' ? "'…'" : t.kind === 'quoted' ? `"${t.value}"` : t.value))
    .join(' ')
    .slice(0, 200);

/** Reads a pg_dumpall --globals-only script. */
export function readRecordedRoles(sql: string): RecordedRoles {
  const recorded: RecordedRoles = { roles: [], memberships: [], settings: [], skipped: [] };
  const role = (name: string) => {
    let found = recorded.roles.find((r) => r.name === name);
    if (!found) {
      found = { name, login: false, password: null, noInherit: false, connectionLimit: null, validUntil: null, refused: [] };
      recorded.roles.push(found);
    }
    return found;
  };
  for (const { tokens: t, text } of statementsOf(sql)) {
    const subject = nameOf(t[2]);
    if (isWord(t[0], 'SET')) continue; // the script's own session settings
    if (isWord(t[0], 'CREATE') && isWord(t[1], 'ROLE') && subject !== null && t.length === 3) role(subject);
    else if (isWord(t[0], 'ALTER') && isWord(t[1], 'ROLE') && subject !== null && isWord(t[3], 'WITH')) readAttributes(role(subject), t.slice(4));
    else if (isWord(t[0], 'ALTER') && isWord(t[1], 'ROLE') && subject !== null && ['SET', 'RESET', 'IN'].some((w) => isWord(t[3], w))) {
      recorded.settings.push({ role: subject, statement: text, what: described(t) });
    } else if (isWord(t[0], 'COMMENT') && isWord(t[1], 'ON') && isWord(t[2], 'ROLE')) {
      // Every role restored is marked as made through Warden, whatever its comment said.
    } else if (isWord(t[0], 'GRANT') && nameOf(t[1]) !== null && isWord(t[2], 'TO') && nameOf(t[3]) !== null) {
      // GRANT role TO member [WITH ADMIN OPTION] [GRANTED BY grantor]
      const grantedBy = t.findIndex((w, k) => k > 3 && isWord(w, 'GRANTED'));
      const options = t.slice(4, grantedBy === -1 ? undefined : grantedBy);
      recorded.memberships.push({ role: nameOf(t[1])!, member: nameOf(t[3])!, admin: options.some((w) => isWord(w, 'ADMIN')), what: described(t) });
    } else {
      recorded.skipped.push({ database: null, what: described(t), reason: 'Only roles, their memberships and their settings are restored: a restore does not make tablespaces or grant parameter privileges.' });
    }
  }
  return recorded;
}

/** ALTER ROLE … WITH's attributes, as pg_dumpall writes them. */
function readAttributes(role: RecordedRole, attributes: Token[]) {
  for (let k = 0; k < attributes.length; k++) {
    const word = attributes[k].kind === 'word' ? attributes[k].value.toUpperCase() : attributes[k].value;
    const next = attributes[k + 1];
    if (word === 'LOGIN' || word === 'NOLOGIN') role.login = word === 'LOGIN';
    else if (word === 'NOINHERIT' || word === 'INHERIT') role.noInherit = word === 'NOINHERIT';
    else if (['NOSUPERUSER', 'NOCREATEROLE', 'NOCREATEDB', 'NOREPLICATION', 'NOBYPASSRLS'].includes(word)) continue;
    else if (word === 'PASSWORD' && (next?.kind === 'string' || isWord(next, 'NULL'))) {
      role.password = next.kind === 'string' ? next.value : null;
      k++;
    } else if (word === 'CONNECTION' && isWord(next, 'LIMIT') && attributes[k + 2]?.kind === 'number') {
      role.connectionLimit = Number(attributes[k + 2].value);
      k += 2;
    } else if (word === 'VALID' && isWord(next, 'UNTIL') && attributes[k + 2]?.kind === 'string') {
      role.validUntil = attributes[k + 2].value;
      k += 2;
    } else role.refused.push(word);
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Makes the recorded roles and their memberships, as the superuser, in one transaction per role or
 * membership. The instance's own roles (the superuser, the owner role) are not touched. Answers the
 * roles that exist afterwards for the backup's objects to belong to: the owner role and those made.
 */
export async function remakeRoles(c: Client, recorded: RecordedRoles, skipped: RestoreSkip[]): Promise<string[]> {
  const made = [pgOwnerRole];
  const skip = (what: string, reason: string) => skipped.push({ database: null, what, reason });
  const inTransaction = async (what: string, work: () => Promise<void>) => {
    try {
      await c.query('begin');
      await work();
      await c.query('commit');
      return true;
    } catch (error) {
      await c.query('rollback').catch(() => undefined);
      skip(what, message(error));
      return false;
    }
  };
  for (const role of recorded.roles) {
    if (role.name === 'postgres' || role.name === pgOwnerRole) continue;
    const restored = await inTransaction(`role ${role.name}`, async () => {
      checkNewRoleName(role.name, 'name');
      await makeManagedRole(c, role.name, role.login);
      const id = c.escapeIdentifier(role.name);
      const limits = [
        role.noInherit ? 'noinherit' : '',
        role.connectionLimit === null ? '' : `connection limit ${role.connectionLimit}`,
        role.validUntil === null ? '' : `valid until ${c.escapeLiteral(role.validUntil)}`,
      ].filter(Boolean);
      if (limits.length > 0) await c.query(`alter role ${id} with ${limits.join(' ')}`);
      if (role.password !== null) await setRolePassword(c, role.name, role.password);
    });
    if (!restored) continue;
    made.push(role.name);
    for (const attribute of role.refused) {
      skip(`${attribute} of role ${role.name}`, 'A role made through Warden has no attribute but LOGIN (and what restricts it): the role is restored without it.');
    }
  }
  for (const { role, member, admin, what } of recorded.memberships) {
    if (member === 'postgres') continue;
    if (!made.includes(member)) {
      skip(what, `${member} is not restored.`);
      continue;
    }
    const granted = await inTransaction(what, async () => {
      if (role === member) throw new Error('A role cannot be a member of itself.');
      await grantable(c, role, 'memberOf');
      await c.query(`grant ${c.escapeIdentifier(role)} to ${c.escapeIdentifier(member)}`);
    });
    if (granted && admin) skip(what, 'A role made through Warden never holds ADMIN OPTION: the membership is restored without it.');
  }
  return made;
}

/**
 * Applies the recorded settings of the restored roles over `login`, a session that may SET ROLE to
 * each of them: each is set by the role itself, so PostgreSQL refuses a parameter the role could not
 * set (a superuser-only one such as session_preload_libraries).
 */
export async function applyRoleSettings(login: Client, recorded: RecordedRoles, roles: string[], skipped: RestoreSkip[]) {
  for (const { role, statement, what } of recorded.settings) {
    if (role === 'postgres') continue;
    if (!roles.includes(role)) {
      skipped.push({ database: null, what, reason: `${role} is not restored.` });
      continue;
    }
    try {
      await login.query(`set role ${login.escapeIdentifier(role)}`);
      await login.query(statement);
    } catch (error) {
      skipped.push({ database: null, what, reason: message(error) });
    } finally {
      await login.query('reset role').catch(() => undefined);
    }
  }
}
