import { withAdvisoryLock } from "./advisory-lock.js";
import type { Database } from "./database.js";
import { migrations } from "./migrations/index.js";

/** Arbitrary constant shared by every replica: the advisory lock that serialises migrations. */
const MIGRATION_LOCK_ID = 7_314_620_001;

export interface MigrationResult {
  applied: number[];
  current: number;
}

/**
 * Applies pending migrations, numbered and forward-only, each in its own transaction, under a
 * session-level advisory lock so replicas starting at once do not race.
 */
export async function migrate(db: Database): Promise<MigrationResult> {
  return withAdvisoryLock(db, MIGRATION_LOCK_ID, async (session) => {
    await session.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         id integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const rows = await session.query<{ id: number }>("SELECT id FROM schema_migrations");
    const done = new Set(rows.map((r) => r.id));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await session.exec("BEGIN");
      try {
        await session.exec(m.sql);
        await session.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [
          m.id,
          m.name,
        ]);
        await session.exec("COMMIT");
      } catch (err) {
        await session.exec("ROLLBACK");
        throw new Error(`migration ${m.id} (${m.name}) failed`, { cause: err });
      }
      applied.push(m.id);
    }
    const current = migrations.length === 0 ? 0 : Math.max(...migrations.map((m) => m.id));
    return { applied, current };
  });
}

/** True when every known migration has been applied. */
export async function isMigrated(db: Database): Promise<boolean> {
  try {
    const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
    return (rows[0]?.n ?? 0) >= migrations.length;
  } catch {
    return false;
  }
}
