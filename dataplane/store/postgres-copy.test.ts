import test from "ava";
import { freshPostgresUrl, POSTGRES_URL } from "../../test/support/databases.js";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";
import { GUARD_REFUSED, sqlTextLiteral } from "./copy-guard.js";
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
  test("postgres: COPY rows go in only when the guard does not refuse, a failing COPY undoes the guard, and the one pooled connection is left clean each time", async (t) => {
    const { db, drop } = await oneConnection();
    try {
      await db.exec(`CREATE TABLE head (n int NOT NULL); INSERT INTO head VALUES (0);
                     CREATE TABLE items (id int PRIMARY KEY, note text);
                     CREATE FUNCTION move_head(f int, t int) RETURNS void LANGUAGE plpgsql AS $$
                     BEGIN
                       UPDATE head SET n = t WHERE n = f;
                       IF NOT FOUND THEN RAISE EXCEPTION 'moved' USING ERRCODE = '${GUARD_REFUSED}'; END IF;
                     END $$`);
      const guard = (from: number, to: number) => `SELECT move_head(${from}, ${to})`;
      const copyRows = db.copyRows?.bind(db);
      if (!copyRows) return t.fail("Postgres offers COPY outside transactions");
      const columns = ["id", "note"];
      t.true(await copyRows("items", columns, text("1\ttab\\there\n", "2\t\\N\n"), guard(0, 1)));
      // Refused: the COPY data sent behind the guard is dropped by the server, and the same
      // connection answers the next query at once (no aborted transaction left on it).
      t.false(await copyRows("items", columns, text("3\tstale\n"), guard(0, 2)));
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
      // Any other error of the guard is an error, not a refusal.
      const broken = await t.throwsAsync(copyRows("items", columns, text("3\tx\n"), "SELECT 1/0"));
      t.is((broken as Error & { code?: string }).code, "22012");
      // A COPY that fails part way (a duplicate key in its second row) undoes the guard's move.
      const duplicate = await t.throwsAsync(
        copyRows("items", columns, text("4\tx\n", "1\ty\n"), guard(1, 2)),
      );
      t.is((duplicate as Error & { code?: string }).code, "23505");
      // Malformed COPY data: refused, nothing kept.
      const malformed = await t.throwsAsync(copyRows("items", columns, text("five\tx\n")));
      t.is((malformed as Error & { code?: string }).code, "22P02");
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
      t.deepEqual(await db.query("SELECT id, note FROM items ORDER BY id"), [
        { id: 1, note: "tab\there" },
        { id: 2, note: null },
      ]);
      // The connection takes a transaction as usual afterwards (no COPY state left behind).
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES (3, 'after')");
      });
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 3 }]);
    } finally {
      await drop();
    }
  });

  test("postgres: binary COPY takes values as they are, across pieces; a value that is not JSON in a json column is refused whole", async (t) => {
    const { db, drop } = await oneConnection();
    try {
      await db.exec(
        "CREATE TABLE wide (n bigint PRIMARY KEY, note text, at timestamptz, doc json)",
      );
      const long = "x".repeat(200_000); // longer than a piece: a value in a piece of its own
      const notes = ["tab\there\nline \\N \\.", "naïve ✓ 😀", "", long];
      const rows = new CopyBinaryPieces();
      notes.forEach((note, i) =>
        rows
          .row(4)
          .int8(2 ** 40 + i)
          .text(note)
          .int8(isoToPgMicros("2026-01-02T03:04:05.678Z") ?? NaN)
          .text(JSON.stringify({ i })),
      );
      rows.row(4).int8(-5).null().null().null();
      const pieces = rows.pieces();
      t.true(pieces.length > 1, "the long value took a piece of its own");
      const columns = ["n", "note", "at", "doc"];
      t.true(await db.copyRows?.("wide", columns, { format: "binary", pieces }));
      const stored = await db.query<{ n: number; note: string | null; at: Date | null }>(
        "SELECT n, note, at FROM wide ORDER BY n",
      );
      t.deepEqual(
        stored.map((r) => r.note),
        [null, ...notes],
      );
      t.is(stored[1]?.n, 2 ** 40);
      t.is(stored[1]?.at?.toISOString(), "2026-01-02T03:04:05.678Z");
      const bad = new CopyBinaryPieces();
      bad.row(4).int8(1).null().null().text("{not json");
      bad.row(4).int8(2).null().null().text("{}");
      const refused = await t.throwsAsync(
        db.copyRows?.("wide", columns, { format: "binary", pieces: bad.pieces() }) ??
          Promise.resolve(),
      );
      t.is((refused as Error & { code?: string }).code, "22P02");
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM wide"), [{ c: 5 }]);
    } finally {
      await drop();
    }
  });

  test("postgres: inside a caller's transaction the COPY is part of it: rolled back with it, and a refused guard aborts it", async (t) => {
    const { db, drop } = await oneConnection();
    try {
      await db.exec(`CREATE TABLE head (n int NOT NULL); INSERT INTO head VALUES (0);
                     CREATE TABLE items (id int PRIMARY KEY, note text);
                     CREATE FUNCTION move_head(f int, t int) RETURNS void LANGUAGE plpgsql AS $$
                     BEGIN
                       UPDATE head SET n = t WHERE n = f;
                       IF NOT FOUND THEN RAISE EXCEPTION 'moved' USING ERRCODE = '${GUARD_REFUSED}'; END IF;
                     END $$`);
      const columns = ["id", "note"];
      await t.throwsAsync(
        db.transaction(async (tx) => {
          t.true(
            await tx.copyRows?.("items", columns, text("1\tin tx\n"), "SELECT move_head(0, 1)"),
          );
          t.deepEqual(await tx.query("SELECT count(*)::int AS c FROM items"), [{ c: 1 }]);
          throw new Error("caller gave up");
        }),
      );
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 0 }]);
      const aborted = await t.throwsAsync(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO items VALUES (6, 'before the guard')");
          t.false(
            await tx.copyRows?.("items", columns, text("7\tstale\n"), "SELECT move_head(5, 9)"),
          );
          await tx.query("SELECT 1"); // the transaction is aborted: refused
        }),
      );
      t.is((aborted as Error & { code?: string }).code, "25P02");
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 0 }]);
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
