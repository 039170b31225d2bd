import { randomUUID } from 'node:crypto';
import type { AuditOutcome, Db } from './schema';

export interface AuditEvent {
  at: Date;
  userId: string | null;
  /** Dotted verb, e.g. `auth.login`. */
  action: string;
  /** What was acted on, e.g. the e-mail signed in with or an instance id. */
  target: string | null;
  outcome: AuditOutcome;
  detail?: Record<string, unknown>;
  ip: string | null;
}

export interface AuditEntry extends Omit<AuditEvent, 'at' | 'detail'> {
  id: string;
  at: string;
  detail: Record<string, unknown> | null;
}

export async function recordAudit(db: Db, event: AuditEvent): Promise<void> {
  await db
    .insertInto('audit_entries')
    .values({
      id: randomUUID(),
      at: event.at.toISOString(),
      user_id: event.userId,
      action: event.action,
      target: event.target,
      outcome: event.outcome,
      detail: event.detail ? JSON.stringify(event.detail) : null,
      ip: event.ip,
    })
    .execute();
}

/** Newest first. */
export async function listAudit(db: Db, limit = 100): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('audit_entries').selectAll().orderBy('at', 'desc').limit(limit).execute();
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    userId: row.user_id,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null,
    ip: row.ip,
  }));
}
