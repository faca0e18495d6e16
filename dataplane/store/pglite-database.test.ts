import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { openPglite } from "./pglite-database.js";

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
