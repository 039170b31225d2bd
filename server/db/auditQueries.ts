import { sql } from 'kysely';
import type { PageOf } from '../../contracts/page';
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
  return pageOf(
    window,
    total,
    rows.map((row) => ({
      ...row,
      userEmail: row.userEmail ?? null,
      detail: row.detail ? (JSON.parse(row.detail) as unknown) : null,
    })),
  );
}
