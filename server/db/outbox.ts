import type { Selectable } from 'kysely';
import type { PageOf } from '../../contracts/page';
import type { OutboxMessage } from '../../contracts/users';
import { contains, offsetOf, pageOf, type PageWindow } from './paging';
import type { Db, OutboxTable } from './schema';

export interface NewOutboxMessage {
  id: string;
  at: Date;
  to: string;
  subject: string;
  text: string;
}

function toMessage(row: Selectable<OutboxTable>): OutboxMessage {
  return { id: row.id, at: row.at, to: row.to, subject: row.subject, text: row.text, sent: row.sent === 1, error: row.error };
}

export async function insertOutboxMessage(db: Db, message: NewOutboxMessage): Promise<void> {
  await db
    .insertInto('outbox')
    .values({ ...message, at: message.at.toISOString(), sent: 0, error: null })
    .execute();
}

/** Records how delivery went: sent, or the error that stopped it. */
export async function recordDelivery(db: Db, id: string, outcome: { sent: true } | { sent: false; error: string }) {
  await db
    .updateTable('outbox')
    .set(outcome.sent ? { sent: 1, error: null } : { sent: 0, error: outcome.error })
    .where('id', '=', id)
    .execute();
}

export interface OutboxQuery {
  /** Part of the recipient's address, case-insensitive. */
  search?: string;
  order: 'asc' | 'desc';
  window: PageWindow;
}

/** Messages by time (newest first for 'desc'). */
export async function listOutbox(db: Db, query: OutboxQuery): Promise<PageOf<OutboxMessage>> {
  let base = db.selectFrom('outbox');
  // Recipients are stored lower-cased, so a lower-cased search is case-insensitive on both dialects.
  if (query.search) base = base.where(contains('to', query.search.toLowerCase()));
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('at', query.order)
      .orderBy('id', query.order)
      .limit(query.window.pageSize)
      .offset(offsetOf(query.window))
      .execute(),
  ]);
  return pageOf(query.window, total, rows.map(toMessage));
}
