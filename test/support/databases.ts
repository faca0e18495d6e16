import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "../../dataplane/store/database.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";
import { openPostgres } from "../../dataplane/store/postgres-database.js";

/** Real Postgres for tests, when the environment names one (CI always does). */
export const POSTGRES_URL = process.env.DATABASE_URL || undefined;
/** Real Redis for tests, when the environment names one (CI always does). */
export const REDIS_URL = process.env.REDIS_URL || undefined;

export interface TestDatabase {
  db: Database;
  /** Connection string of a fresh real database; undefined for PGlite. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** A fresh, empty database on the real Postgres server named by DATABASE_URL. */
export async function freshPostgresUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!POSTGRES_URL) throw new Error("DATABASE_URL is not set");
  const name = `evident_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface Backend {
  name: "pglite" | "postgres";
  open(): Promise<TestDatabase>;
}

/** Every store backend available here: embedded always, real Postgres when DATABASE_URL is set. */
export function storeBackends(): Backend[] {
  const backends: Backend[] = [
    {
      name: "pglite",
      async open() {
        const db = await openPglite(undefined);
        return { db, url: undefined, drop: () => db.close() };
      },
    },
  ];
  if (POSTGRES_URL) {
    backends.push({
      name: "postgres",
      async open() {
        const fresh = await freshPostgresUrl();
        const db = openPostgres({ connectionString: fresh.url, connectTimeoutMs: 30_000 });
        return {
          db,
          url: fresh.url,
          async drop() {
            await db.close();
            await fresh.drop();
          },
        };
      },
    });
  }
  return backends;
}
