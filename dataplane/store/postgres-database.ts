import pg from "pg";
import type { Database, Queryable, SqlParam } from "./database.js";
import { copyRowsOnClient } from "./postgres-copy.js";

// int8 (counts, sequence numbers) and numeric come back as numbers, as they do from PGlite.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** A pool's or a checked-out client's queries, COPY included. */
function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    copyRows: (table, columns, rows, guard) =>
      client instanceof pg.Pool
        ? checkedOut(client, (c) => copyRowsOnClient(c, table, columns, rows, guard))
        : copyRowsOnClient(client, table, columns, rows, guard),
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      const res = await client.query<Row>(text, params as unknown[]);
      return res.rows;
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

/**
 * Runs fn on a pooled client. A connection that breaks while checked out (between two queries)
 * emits 'error' on the client, not the pool: without a listener that would crash the process.
 * A client that failed is destroyed instead of going back to the pool.
 */
async function checkedOut<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    return await fn(client);
  } catch (err) {
    broken ??=
      err instanceof Error && /connection|ECONN|terminat/i.test(err.message) ? err : undefined;
    throw err;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

export interface PostgresOptions {
  connectionString: string;
  max?: number;
  /** How long acquiring a new connection may take (default 5 s). */
  connectTimeoutMs?: number;
  /** Called when an idle pooled connection fails (server restart); the pool replaces it. */
  onIdleError?: (err: Error) => void;
}

export function openPostgres(options: PostgresOptions): Database & { pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on("error", (err) => options.onIdleError?.(err));
  const direct = wrap(pool);
  return {
    kind: "postgres",
    pool,
    query: direct.query,
    exec: direct.exec,
    copyRows: direct.copyRows,
    async transaction(fn) {
      return checkedOut(pool, async (client) => {
        await client.query("BEGIN");
        try {
          const result = await fn(wrap(client));
          await client.query("COMMIT");
          return result;
        } catch (err) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw err;
        }
      });
    },
    withSession: (fn) => checkedOut(pool, (client) => fn(wrap(client))),
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
