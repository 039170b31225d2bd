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

/** A refresh token's session, consumed or not, if it has not expired and its user is not disabled. */
export async function findRefreshSession(db: Db, id: string, now: Date) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as id',
      'sessions.user_id as userId',
      'sessions.family_id as familyId',
      'sessions.consumed_at as consumedAt',
    ])
    .where('sessions.id', '=', id)
    .where('sessions.kind', '=', 'refresh')
    .where('sessions.expires_at', '>', now.toISOString())
    .where('users.disabled', '=', 0)
    .executeTakeFirst();
}

/** Marks a refresh token used; false when it already was (another request exchanged it first). */
export async function consumeRefreshSession(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ consumed_at: at.toISOString() })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findFamilyOf(db: Db, id: string): Promise<string | null> {
  const row = await db.selectFrom('sessions').select('family_id').where('id', '=', id).executeTakeFirst();
  return row?.family_id ?? null;
}

/** Ends every session of a bearer family; answers the ids ended. */
export async function deleteFamily(db: Db, familyId: string): Promise<string[]> {
  const rows = await db.deleteFrom('sessions').where('family_id', '=', familyId).returning('id').execute();
  return rows.map((row) => row.id);
}

/**
 * Ends a user's sessions, except one session and the bearer family it belongs to when `keep` is
 * given; answers the ids ended.
 */
export async function deleteUserSessions(
  db: Db,
  userId: string,
  keep?: { sessionId: string; familyId: string | null },
): Promise<string[]> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep) {
    query = query.where('id', '!=', keep.sessionId);
    const familyId = keep.familyId;
    if (familyId) query = query.where((eb) => eb.or([eb('family_id', 'is', null), eb('family_id', '!=', familyId)]));
  }
  const rows = await query.returning('id').execute();
  return rows.map((row) => row.id);
}
