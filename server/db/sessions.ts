import type { Insertable } from 'kysely';
import type { Role } from '../../contracts/roles';
import type { Db, SessionKind, SessionsTable } from './schema';

export type NewSession = Insertable<SessionsTable>;

/** A live session joined with what authorization needs about its user. */
export interface ActiveSession {
  id: string;
  userId: string;
  role: Role;
  kind: SessionKind;
  lastSeenAt: string;
}

export async function insertSession(db: Db, session: NewSession): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

/** The session with this id and kind if it has not expired and its user is not disabled. */
export async function findActiveSession(
  db: Db,
  id: string,
  kind: SessionKind,
  now: Date,
): Promise<ActiveSession | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as id',
      'sessions.user_id as userId',
      'users.role as role',
      'sessions.kind as kind',
      'sessions.last_seen_at as lastSeenAt',
    ])
    .where('sessions.id', '=', id)
    .where('sessions.kind', '=', kind)
    .where('sessions.expires_at', '>', now.toISOString())
    .where('users.disabled', '=', 0)
    .executeTakeFirst();
}

export async function touchSession(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at.toISOString() }).where('id', '=', id).execute();
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Drops a user's expired sessions so the table does not grow without bound. */
export async function deleteExpiredSessions(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('expires_at', '<=', now.toISOString())
    .execute();
}
