import { openDb } from '../../server/db/open';
import { createUser } from '../../server/db/users';

/** Adds a regular user straight into the running server's store (a second SQLite writer is fine in WAL mode). */
export async function createRegularUser(dataDir: string, user: { email: string; password: string }) {
  const db = openDb({ dataDir });
  try {
    await createUser(db, { ...user, role: 'regular', emailConfirmed: true });
  } finally {
    await db.destroy();
  }
}
