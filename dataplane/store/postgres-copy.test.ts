import test from "ava";
import { freshPostgresUrl, POSTGRES_URL } from "../../test/support/databases.js";
import { guardedItems } from "../../test/support/guarded-items.js";
import { sqlTextLiteral } from "./copy-guard.js";
import type { CopyData, Database } from "./database.js";
import { openPostgres } from "./postgres-database.js";

const text = (...pieces: string[]): CopyData => ({ format: "text", pieces });

/** A fresh database with one connection, so every call shares (and must leave clean) it. */
async function oneConnection(): Promise<{ db: Database; drop: () => Promise<void> }> {
  const fresh = await freshPostgresUrl();
  const db = openPostgres({ connectionString: fresh.url, max: 1, connectTimeoutMs: 30_000 });
  return {
    db,
    async drop() {
      await db.close();
      await fresh.drop();
    },
  };
}

if (POSTGRES_URL) {
  test("postgres: the guard, the COPY and its data go out in one round trip; after a refusal, a failing guard or failing COPY data the pool's one connection is idle and clean again", async (t) => {
    const { db, drop } = await oneConnection();
    try {
      const guard = await guardedItems(db);
      const copyRows = db.copyRows?.bind(db);
      if (!copyRows) return t.fail("Postgres offers COPY");
      const columns = ["id", "note"];
      // No transaction left open on the connection (an aborted one would refuse this query, an
      // open one would have the guard's transaction id).
      const idle = () => db.query("SELECT pg_current_xact_id_if_assigned() IS NULL AS idle");
      // Refused: the COPY data sent behind the guard is dropped by the server.
      t.false(await copyRows("items", columns, text("1\tstale\n"), guard(5, 6)));
      t.deepEqual(await idle(), [{ idle: true }]);
      await t.throwsAsync(copyRows("items", columns, text("1\tx\n"), "SELECT 1/0"));
      t.deepEqual(await idle(), [{ idle: true }]);
      await t.throwsAsync(copyRows("items", columns, text("one\tx\n"), guard(0, 1)));
      t.deepEqual(await idle(), [{ idle: true }]);
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 0 }]);
      // Large data behind a refused guard (several pieces) is dropped whole as well.
      const many = Array.from({ length: 3 }, (_, p) =>
        Array.from({ length: 5_000 }, (_, i) => `${p * 5_000 + i}\t${"y".repeat(10)}\n`).join(""),
      );
      t.false(await copyRows("items", columns, text(...many), guard(9, 10)));
      t.true(await copyRows("items", columns, text(...many), guard(0, 1)));
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 15_000 }]);
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES (-1, 'after')");
      });
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 15_001 }]);
    } finally {
      await drop();
    }
  });

  test("postgres: a guard's text literals read back as written whatever the server's standard_conforming_strings (an operator's setting, not ours)", async (t) => {
    const { db, drop } = await oneConnection();
    try {
      const hostile = [
        "x\\'); DROP TABLE audit_records; --",
        "back\\slash",
        "it's",
        "$$ $fn$",
        "\\",
      ];
      for (const setting of ["on", "off"]) {
        await db.exec(`SET standard_conforming_strings = ${setting}`); // the pool's one connection
        for (const value of hostile) {
          const [row] = await db.query<{ v: string }>(`SELECT ${sqlTextLiteral(value)}::text AS v`);
          t.is(row?.v, value, `standard_conforming_strings=${setting}`);
        }
      }
    } finally {
      await drop();
    }
  });
} else {
  test.skip("postgres COPY tests need DATABASE_URL", () => undefined);
}
