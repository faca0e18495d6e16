import type { Database, Queryable } from "./database.js";

/** Runs fn while holding a session-level advisory lock (serialises work across replicas). */
export async function withAdvisoryLock<T>(
  db: Database,
  lockId: number,
  fn: (session: Queryable) => Promise<T>,
): Promise<T> {
  return db.withSession(async (session) => {
    await session.query("SELECT pg_advisory_lock($1)", [lockId]);
    try {
      return await fn(session);
    } finally {
      await session.query("SELECT pg_advisory_unlock($1)", [lockId]);
    }
  });
}
