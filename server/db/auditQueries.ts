import { sql } from 'kysely';
import type { PageOf } from '../../contracts/page';
import { routePath } from '../../contracts/routes';
import type { AuditEntry } from '../../contracts/users';
import { escapeLike, like, offsetOf, pageOf, type PageWindow } from './paging';
import type { AuditOutcome, Db } from './schema';

// Reading the audit trail (GET /admin/audit); audit.ts writes it.

export interface AuditFilter {
  /** An action (`groups.update`) or a dotted prefix of actions (`groups` matches `groups.update`). */
  action?: string;
  userId?: string;
  /** Text the target contains, whatever its case. */
  target?: string;
  outcome?: AuditOutcome;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/** Newest first, with the acting user's current e-mail (null once the user is gone). */
export async function listAuditPage(db: Db, filter: AuditFilter, window: PageWindow): Promise<PageOf<AuditEntry>> {
  let base = db.selectFrom('audit_entries').leftJoin('users', 'users.id', 'audit_entries.user_id');
  const { action, userId, target, outcome, from, to } = filter;
  if (action) {
    base = base.where((eb) =>
      eb.or([eb('audit_entries.action', '=', action), like('audit_entries.action', `${escapeLike(action)}.%`)]),
    );
  }
  if (userId) base = base.where('audit_entries.user_id', '=', userId);
  // lower() on both sides: LIKE is case-insensitive on SQLite but not on PostgreSQL.
  if (target) base = base.where(sql<boolean>`lower(${sql.ref('audit_entries.target')}) like ${`%${escapeLike(target.toLowerCase())}%`} escape '\\'`);
  if (outcome) base = base.where('audit_entries.outcome', '=', outcome);
  // Stored as toISOString() text, which sorts and compares chronologically.
  if (from) base = base.where('audit_entries.at', '>=', from.toISOString());
  if (to) base = base.where('audit_entries.at', '<', to.toISOString());

  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .select([
        'audit_entries.id as id',
        'audit_entries.at as at',
        'audit_entries.user_id as userId',
        'users.email as userEmail',
        'audit_entries.action as action',
        'audit_entries.target as target',
        'audit_entries.outcome as outcome',
        'audit_entries.detail as detail',
        'audit_entries.ip as ip',
      ])
      .orderBy('audit_entries.at', 'desc')
      .orderBy('audit_entries.id', 'desc')
      .limit(window.pageSize)
      .offset(offsetOf(window))
      .execute(),
  ]);
  const targets = await auditTargets(db, rows.map((row) => row.target).filter((target) => target !== null));
  return pageOf(
    window,
    total,
    rows.map((row) => {
      const named = row.target === null ? undefined : targets.get(row.target);
      return {
        ...row,
        targetName: named?.name ?? null,
        targetLink: named?.link ?? null,
        userEmail: row.userEmail ?? null,
        detail: row.detail ? (JSON.parse(row.detail) as unknown) : null,
      };
    }),
  );
}

interface AuditTarget {
  name: string;
  link: string;
}

/**
 * The instances, groups, users and backups that still exist among a page's targets, by id, with a
 * name and the screen that shows each: one query for the whole page. Ids are UUIDs, so one id
 * names one thing whatever the action; a target that is an e-mail or is gone is not in the answer.
 */
async function auditTargets(db: Db, targets: readonly string[]): Promise<Map<string, AuditTarget>> {
  const ids = [...new Set(targets)];
  if (ids.length === 0) return new Map();
  const none = sql<string | null>`null`;
  const rows = await db
    .selectFrom('instances')
    .select(['id', 'name', sql<string>`'instance'`.as('kind'), none.as('instance_id'), none.as('started_at')])
    .where('id', 'in', ids)
    .unionAll(db.selectFrom('groups').select(['id', 'name', sql<string>`'group'`.as('kind'), none.as('instance_id'), none.as('started_at')]).where('id', 'in', ids))
    .unionAll(db.selectFrom('users').select(['id', 'email as name', sql<string>`'user'`.as('kind'), none.as('instance_id'), none.as('started_at')]).where('id', 'in', ids))
    .unionAll(
      db
        .selectFrom('backups')
        .leftJoin('instances', 'instances.id', 'backups.instance_id')
        .select(['backups.id as id', 'backups.instance_name as name', 'backups.kind as kind', 'instances.id as instance_id', 'backups.started_at as started_at'])
        .where('backups.id', 'in', ids),
    )
    .execute();
  return new Map(rows.map((row) => [row.id, describeTarget(row)]));
}

type TargetRow = { id: string; kind: string; name: string; instance_id: string | null; started_at: string | null };

/** A backup is named by its instance and time, and shown on its instance's backups (the backups screen once the instance is gone). */
function describeTarget({ id, kind, name, instance_id, started_at }: TargetRow): AuditTarget {
  switch (kind) {
    case 'instance':
      return { name, link: routePath('singleInstance', { id }) };
    case 'group':
      return { name, link: routePath('group', { id }) };
    case 'user':
      return { name, link: routePath('admin-user', { id }) };
    default: {
      const screen = kind === 'file' ? 'instanceFileBackups' : 'instanceDatabaseBackups';
      return { name: `${kind} backup of ${name}, ${started_at}`, link: instance_id ? routePath(screen, { id: instance_id }) : routePath('backups') };
    }
  }
}
