import test from "ava";
import { rowChunks } from "./copy-row-chunks.js";

const row = (i: number, width: number) => `${i}\t${"x".repeat(width)}\n`;

test("a short batch is one piece, as it is", (t) => {
  t.deepEqual(rowChunks("a\tb\n"), ["a\tb\n"]);
  t.deepEqual(rowChunks(""), [""]);
});

test("a long batch is cut only after a row's newline, into pieces under V8's large-object size, and joins back to the same text", (t) => {
  const rows = Array.from({ length: 400 }, (_, i) => row(i, 900 + (i % 7) * 50)).join("");
  const chunks = rowChunks(rows);
  t.true(chunks.length > 5);
  t.is(chunks.join(""), rows);
  for (const chunk of chunks) {
    t.true(chunk.endsWith("\n"), "each piece ends a row");
    t.true(chunk.length <= 64 * 1024, `${chunk.length} characters`);
  }
});

test("a row longer than a piece stays whole, and surrogate pairs are never split", (t) => {
  const long = `1\t${"😀".repeat(40_000)}\n`; // 80,000 UTF-16 units, one row
  const rows = `${row(0, 10)}${long}${row(2, 10)}`;
  const chunks = rowChunks(rows);
  t.is(chunks.join(""), rows);
  t.true(
    chunks.some((c) => c.includes(long)),
    "the long row is in one piece",
  );
  for (const chunk of chunks)
    t.is(Buffer.from(chunk, "utf8").toString("utf8"), chunk, "no lone surrogate at a cut");
});
