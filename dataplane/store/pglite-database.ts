import { mkdir } from "node:fs/promises";
import { PGlite, types } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import type { Database, Queryable, SqlParam } from "./database.js";

const parsers = {
  [types.INT8]: (v: string) => Number(v),
  [types.NUMERIC]: (v: string) => Number(v),
};

/**
 * Embedded Postgres (PGlite, WebAssembly) on disk in dataDir, or in memory when dataDir is
 * undefined. One connection: calls are serialised by PGlite itself. The pgvector extension is
 * loadable (the response cache creates it when it first needs it); `vector: false` leaves it out.
 */
export async function openPglite(
  dataDir: string | undefined,
  options: { vector?: boolean } = {},
): Promise<Database> {
  if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir === undefined ? undefined : `file://${dataDir}`, {
    parsers,
    extensions: options.vector === false ? {} : { vector },
  });
  const wrap = (q: Pick<PGlite, "query" | "exec">): Queryable => ({
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      const res = await q.query<Row>(text, params as unknown[]);
      return res.rows;
    },
    async exec(text: string) {
      await q.exec(text);
    },
  });
  const direct = wrap(db);
  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    withSession: (fn) => fn(direct),
    async ping() {
      try {
        await db.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.close(),
  };
}
