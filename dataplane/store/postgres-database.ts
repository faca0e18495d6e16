import pg from "pg";
import type { Database, Queryable, SqlParam } from "./database.js";

// int8 (counts, sequence numbers) and numeric come back as numbers, as they do from PGlite.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      const res = await client.query<Row>(text, params as unknown[]);
      return res.rows;
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

export interface PostgresOptions {
  connectionString: string;
  max?: number;
  /** Called when an idle pooled connection fails (server restart); the pool replaces it. */
  onIdleError?: (err: Error) => void;
}

export function openPostgres(options: PostgresOptions): Database & { pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on("error", (err) => options.onIdleError?.(err));
  const direct = wrap(pool);
  return {
    kind: "postgres",
    pool,
    query: direct.query,
    exec: direct.exec,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async withSession(fn) {
      const client = await pool.connect();
      try {
        return await fn(wrap(client));
      } finally {
        client.release();
      }
    },
    async ping() {
      try {
        await pool.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await pool.end();
    },
  };
}
