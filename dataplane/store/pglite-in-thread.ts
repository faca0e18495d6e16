import type { PGlite, Transaction } from "@electric-sql/pglite";
import { rowChunks } from "./copy-row-chunks.js";
import type { Database, Queryable, SqlParam } from "./database.js";

type Target = Pick<Transaction, "query" | "exec">;

/** The statement that loads `columns` of `table` from the COPY text given as PGlite's blob. */
export function copyStatement(table: string, columns: readonly string[]): string {
  return `COPY ${table} (${columns.join(", ")}) FROM '/dev/blob'`;
}

/**
 * COPY's rows (`data`, pieces of COPY text), after `onlyIf` returned a row (or without it); true
 * when copied. Without a transaction of the caller's, the two run in one of their own.
 */
export async function copyInto(
  db: PGlite,
  q: Target | undefined,
  text: string,
  data: readonly string[],
  onlyIf: { text: string; params: readonly unknown[] } | undefined,
): Promise<boolean> {
  const run = async (t: Target) => {
    if (onlyIf) {
      const check = await t.query(onlyIf.text, onlyIf.params as unknown[]);
      if (check.rows.length === 0) return false;
    }
    await t.query(text, [], { blob: new Blob(data as string[]) });
    return true;
  };
  if (q !== undefined) return run(q);
  return onlyIf ? db.transaction(run) : run(db);
}

function queryable(db: PGlite, tx: Target | undefined): Queryable {
  const q = tx ?? db;
  return {
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      return (await q.query<Row>(text, params as unknown[])).rows;
    },
    async exec(text: string) {
      await q.exec(text);
    },
    copyRows: (table, columns, rows, onlyIf) =>
      copyInto(db, tx, copyStatement(table, columns), rowChunks(rows), onlyIf),
  };
}

/**
 * PGlite as a Database, for code that runs on the thread that owns it (pglite-worker.ts): the
 * audit ingestion runs there, next to the store, instead of on the event loop that serves
 * requests.
 */
export function inThreadDatabase(db: PGlite): Database {
  const direct = queryable(db, undefined);
  return {
    kind: "pglite",
    ...direct,
    transaction: (fn) => db.transaction((tx) => fn(queryable(db, tx))),
    withSession: (fn) => fn(direct),
    ping: () => Promise.resolve(true),
    close: () => db.close(),
  };
}
