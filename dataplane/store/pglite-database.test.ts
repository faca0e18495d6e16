import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { openPglite } from "./pglite-database.js";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";
import { GUARD_REFUSED } from "./copy-guard.js";

test("embedded database in its worker thread: a failed transaction rolls back and keeps its SQLSTATE", async (t) => {
  const db = await openPglite(undefined);
  try {
    await db.exec("CREATE TABLE items (id int PRIMARY KEY, note text)");
    const err = await t.throwsAsync(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES ($1, $2)", [1, "first"]);
        await tx.query("INSERT INTO items VALUES ($1, $2)", [1, "duplicate"]);
      }),
    );
    t.is((err as Error & { code?: string }).code, "23505");
    t.deepEqual(await db.query("SELECT * FROM items"), []);
    const thrown = await t.throwsAsync(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES ($1, $2)", [2, "kept?"]);
        throw new Error("caller gave up");
      }),
    );
    t.is(thrown?.message, "caller gave up");
    t.deepEqual(await db.query("SELECT * FROM items"), []);
  } finally {
    await db.close();
  }
});

test("embedded database in its worker thread: values cross the thread intact, and transactions do not interleave", async (t) => {
  const db = await openPglite(undefined);
  try {
    await db.exec("CREATE TABLE seq (n int8 NOT NULL, at timestamptz, data bytea, doc jsonb)");
    const at = new Date("2026-01-02T03:04:05.678Z");
    await db.query("INSERT INTO seq VALUES ($1, $2, $3, $4)", [
      7,
      at,
      Buffer.from([0, 1, 255]),
      { nested: ["\ud83d\ude00"] },
    ]);
    const [row] = await db.query<{ n: number; at: Date; data: Uint8Array; doc: unknown }>(
      "SELECT * FROM seq",
    );
    t.is(row?.n, 7);
    t.is(row?.at.toISOString(), at.toISOString());
    t.deepEqual([...(row?.data ?? [])], [0, 1, 255]);
    t.deepEqual(row?.doc, { nested: ["\ud83d\ude00"] });
    // Ten concurrent read-modify-write transactions: each sees the previous one's commit.
    await Promise.all(
      Array.from({ length: 10 }, () =>
        db.transaction(async (tx) => {
          const [cur] = await tx.query<{ n: number }>("SELECT max(n) AS n FROM seq");
          await tx.query("INSERT INTO seq (n) VALUES ($1)", [(cur?.n ?? 0) + 1]);
        }),
      ),
    );
    const [top] = await db.query<{ n: number; c: number }>(
      "SELECT max(n) AS n, count(DISTINCT n)::int AS c FROM seq",
    );
    t.deepEqual(top, { n: 17, c: 11 });
  } finally {
    await db.close();
  }
});

const text = (...pieces: string[]) => ({ format: "text" as const, pieces });

test("embedded database in its worker thread: COPY rows go in only when the guard does not refuse, and a failing COPY undoes the guard", async (t) => {
  const db = await openPglite(undefined);
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
    if (!copyRows) return t.fail("PGlite offers COPY");
    const copy = (table: string, columns: string[], pieces: string[], g?: string) =>
      copyRows(table, columns, text(...pieces), g);
    t.true(await copy("items", ["id", "note"], ["1\ttab\\there\n", "2\t\\N\n"], guard(0, 1)));
    t.false(await copy("items", ["id", "note"], ["3\tstale\n"], guard(0, 2)));
    // Any other error of the guard is an error, not a refusal.
    const broken = await t.throwsAsync(copy("items", ["id", "note"], ["3\tx\n"], "SELECT 1/0"));
    t.is((broken as Error & { code?: string }).code, "22012");
    const duplicate = await t.throwsAsync(
      copy("items", ["id", "note"], ["4\tx\n", "1\ty\n"], guard(1, 2)),
    );
    t.is((duplicate as Error & { code?: string }).code, "23505");
    t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
    t.deepEqual(await db.query("SELECT id, note FROM items ORDER BY id"), [
      { id: 1, note: "tab\there" },
      { id: 2, note: null },
    ]);
    // Inside a caller's transaction: rolled back with it.
    await t.throwsAsync(
      db.transaction(async (tx) => {
        t.true(await tx.copyRows?.("items", ["id", "note"], text("5\tin tx\n"), guard(1, 5)));
        throw new Error("caller gave up");
      }),
    );
    t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 2 }]);
    // A refusal inside a caller's transaction: false, and nothing of that transaction is kept.
    await t.throwsAsync(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items VALUES (6, 'before the guard')");
        t.false(await tx.copyRows?.("items", ["id", "note"], text("7\tstale\n"), guard(0, 9)));
        throw new Error("head moved");
      }),
    );
    t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 2 }]);
    t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
  } finally {
    await db.close();
  }
});

test("embedded database in its worker thread: calls after close are refused, not left hanging", async (t) => {
  const db = await openPglite(undefined);
  await db.close();
  await t.throwsAsync(db.query("SELECT 1"), { message: /closed/ });
  t.false(await db.ping());
});

test("embedded database on disk: a new directory is initialised, what was committed is there after a reopen, with the small buffer cache", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "evident-pglite-"));
  try {
    const first = await openPglite(path.join(dir, "pgdata"));
    await first.exec("CREATE TABLE kept (id int PRIMARY KEY)");
    await first.query("INSERT INTO kept VALUES ($1)", [7]);
    await first.close();
    const again = await openPglite(path.join(dir, "pgdata"));
    try {
      t.deepEqual(await again.query("SELECT id FROM kept"), [{ id: 7 }]);
      t.deepEqual(await again.query("SHOW shared_buffers"), [{ shared_buffers: "16MB" }]);
    } finally {
      await again.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("embedded database in its worker thread: binary COPY takes values as they are, across pieces, and a malformed one is refused", async (t) => {
  const db = await openPglite(undefined);
  try {
    await db.exec("CREATE TABLE wide (n bigint PRIMARY KEY, note text, at timestamptz, doc json)");
    const long = "x".repeat(100_000); // longer than a piece: a value in a piece of its own
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
    const stored = await db.query<{
      n: number;
      note: string | null;
      at: Date | null;
      doc: unknown;
    }>("SELECT n, note, at, doc FROM wide ORDER BY n");
    t.deepEqual(
      stored.map((r) => r.note),
      [null, ...notes],
    );
    t.deepEqual(stored[1]?.n, 2 ** 40);
    t.is(stored[1]?.at?.toISOString(), "2026-01-02T03:04:05.678Z");
    t.deepEqual(stored[4]?.doc, { i: 3 });
    // Text that is not JSON in a json column is refused, and nothing of that COPY stays.
    const bad = new CopyBinaryPieces();
    bad.row(4).int8(1).null().null().text("{not json");
    const refused = await t.throwsAsync(
      db.copyRows?.("wide", columns, { format: "binary", pieces: bad.pieces() }) ??
        Promise.resolve(),
    );
    t.is((refused as Error & { code?: string }).code, "22P02");
    t.deepEqual(await db.query("SELECT count(*)::int AS c FROM wide"), [{ c: 5 }]);
  } finally {
    await db.close();
  }
});
