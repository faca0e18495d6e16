import test from "ava";
import { storeBackends } from "../../test/support/databases.js";
import { guardedItems } from "../../test/support/guarded-items.js";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";
import type { CopyData } from "./database.js";

const text = (...pieces: string[]): CopyData => ({ format: "text", pieces });
const codeOf = (err: unknown): string | undefined => (err as { code?: string } | undefined)?.code;

for (const backend of storeBackends()) {
  test(`${backend.name}: COPY rows go in only when the guard does not refuse, and a failing COPY undoes the guard; in a caller's transaction both go with it, and a refused guard aborts it`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      const guard = await guardedItems(db);
      const copyRows = db.copyRows?.bind(db);
      if (!copyRows) return t.fail(`${backend.name} offers COPY`);
      const columns = ["id", "note"];
      t.true(await copyRows("items", columns, text("1\ttab\\there\n", "2\t\\N\n"), guard(0, 1)));
      t.false(await copyRows("items", columns, text("3\tstale\n"), guard(0, 2)));
      // Any other error of the guard is an error, not a refusal.
      t.is(
        codeOf(await t.throwsAsync(copyRows("items", columns, text("3\tx\n"), "SELECT 1/0"))),
        "22012",
      );
      // A COPY that fails part way (a duplicate key in its second row) undoes the guard's move.
      const duplicate = await t.throwsAsync(
        copyRows("items", columns, text("4\tx\n", "1\ty\n"), guard(1, 2)),
      );
      t.is(codeOf(duplicate), "23505");
      t.is(codeOf(await t.throwsAsync(copyRows("items", columns, text("five\tx\n")))), "22P02");
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
      t.deepEqual(await db.query("SELECT id, note FROM items ORDER BY id"), [
        { id: 1, note: "tab\there" },
        { id: 2, note: null },
      ]);
      // Inside a caller's transaction: rolled back with it.
      await t.throwsAsync(
        db.transaction(async (tx) => {
          t.true(await tx.copyRows?.("items", columns, text("5\tin tx\n"), guard(1, 5)));
          t.deepEqual(await tx.query("SELECT count(*)::int AS c FROM items"), [{ c: 3 }]);
          throw new Error("caller gave up");
        }),
      );
      // A refusal inside a caller's transaction: false, and the transaction is aborted.
      const aborted = await t.throwsAsync(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO items VALUES (6, 'before the guard')");
          t.false(await tx.copyRows?.("items", columns, text("7\tstale\n"), guard(0, 9)));
          await tx.query("SELECT 1");
        }),
      );
      t.is(codeOf(aborted), "25P02");
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM items"), [{ c: 2 }]);
      t.deepEqual(await db.query("SELECT n FROM head"), [{ n: 1 }]);
    } finally {
      await drop();
    }
  });

  test(`${backend.name}: binary COPY takes values as they are, across pieces; a value that is not JSON in a json column is refused whole`, async (t) => {
    const { db, drop } = await backend.open();
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
      t.deepEqual(await db.query("SELECT doc FROM wide WHERE n = $1", [2 ** 40 + 3]), [
        { doc: { i: 3 } },
      ]);
      const bad = new CopyBinaryPieces();
      bad.row(4).int8(1).null().null().text("{not json");
      bad.row(4).int8(2).null().null().text("{}");
      const refused = await t.throwsAsync(
        db.copyRows?.("wide", columns, { format: "binary", pieces: bad.pieces() }) ??
          Promise.resolve(),
      );
      t.is(codeOf(refused), "22P02");
      t.deepEqual(await db.query("SELECT count(*)::int AS c FROM wide"), [{ c: 5 }]);
    } finally {
      await drop();
    }
  });

  test(`${backend.name}: binary pieces handed over land as the same rows as pieces copied, across pieces and in a caller's transaction; the embedded store takes the buffers (they are empty after), the server leaves them`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await db.exec("CREATE TABLE handed (n bigint PRIMARY KEY, note text)");
      const columns = ["n", "note"];
      const build = (from: number): CopyBinaryPieces => {
        const rows = new CopyBinaryPieces();
        // 3,000 rows of about 60 bytes: more than one 64 KiB piece.
        for (let n = from; n < from + 3000; n++)
          rows
            .row(2)
            .int8(n)
            .text(`row ${n} ${"·".repeat(20)}`);
        return rows;
      };
      const kept = build(0).pieces();
      t.true(kept.length > 1, "more than one piece");
      const keptBytes = kept.map((piece) => piece.byteLength);
      t.true(await db.copyRows?.("handed", columns, { format: "binary", pieces: kept }));
      t.deepEqual(
        kept.map((piece) => piece.byteLength),
        keptBytes,
        "pieces not handed over are left as they were",
      );
      const handed = build(3000).copyData();
      t.true(handed.format === "binary" && handed.handOver === true, "CopyBinaryPieces hands over");
      t.true(await db.copyRows?.("handed", columns, handed));
      const inTx = build(6000).copyData();
      await db.transaction(async (tx) => {
        t.true(await tx.copyRows?.("handed", columns, inTx));
      });
      const emptied = [...handed.pieces, ...inTx.pieces].every((piece) =>
        typeof piece === "string" ? false : piece.byteLength === 0,
      );
      t.is(emptied, backend.name === "pglite", "handed-over buffers moved to the store's thread");
      const stored = await db.query<{ c: number; distinct_notes: number; last: string }>(
        "SELECT count(*)::int AS c, count(DISTINCT note)::int AS distinct_notes, max(n)::text AS last FROM handed",
      );
      t.deepEqual(stored, [{ c: 9000, distinct_notes: 9000, last: "8999" }]);
      t.deepEqual(await db.query("SELECT note FROM handed WHERE n = 4500"), [
        { note: `row 4500 ${"·".repeat(20)}` },
      ]);
    } finally {
      await drop();
    }
  });
}
