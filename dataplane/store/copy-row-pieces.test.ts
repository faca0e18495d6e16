import test from "ava";
import { CopyRowPieces } from "./copy-row-pieces.js";

const row = (i: number, width: number) => `${i}\t${"x".repeat(width)}\n`;

function piecesOf(rows: readonly string[]): string[] {
  const pieces = new CopyRowPieces();
  for (const r of rows) pieces.add(r);
  return pieces.pieces();
}

test("a short batch is one piece, as it is; no rows is one empty piece", (t) => {
  t.deepEqual(piecesOf(["a\tb\n"]), ["a\tb\n"]);
  t.deepEqual(piecesOf(["a\tb\n", "c\td\n"]), ["a\tb\nc\td\n"]);
  t.deepEqual(piecesOf([]), [""]);
});

test("a long batch is cut only between rows, into pieces under V8's large-object size, and joins back to the same text", (t) => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, 900 + (i % 7) * 50));
  const pieces = piecesOf(rows);
  t.true(pieces.length > 5);
  t.is(pieces.join(""), rows.join(""));
  for (const piece of pieces) {
    t.true(piece.endsWith("\n"), "each piece ends a row");
    t.true(piece.length <= 32 * 1024, `${piece.length} characters`);
  }
});

test("a row longer than a piece is a piece of its own, and surrogate pairs are never split", (t) => {
  const long = `1\t${"😀".repeat(40_000)}\n`; // 80,000 UTF-16 units, one row
  const rows = [row(0, 10), long, row(2, 10)];
  const pieces = piecesOf(rows);
  t.deepEqual(pieces, [row(0, 10), long, row(2, 10)]);
  for (const piece of pieces)
    t.is(Buffer.from(piece, "utf8").toString("utf8"), piece, "no lone surrogate at a cut");
});
