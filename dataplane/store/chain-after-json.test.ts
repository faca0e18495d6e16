import test from "ava";
import { goldenRecords } from "../../test/support/golden-records.js";
import { storableRecord } from "../audit/storable-record.js";
import { chainAfter } from "./audit-chain-append.js";

/**
 * The store parameter of a batch is written piece by piece into one Buffer (no string of the whole
 * batch): across the pieces' edges it must still be exactly one JSON array of every record, with
 * multi-byte characters whole.
 */
test("a batch larger than one piece becomes one JSON array of every record, multi-byte text whole across the pieces' edges", (t) => {
  const [template] = goldenRecords().map(storableRecord);
  if (template === undefined) throw new Error("no golden record");
  // Each record's content is about 1,500 characters, two- to four-byte UTF-8 among them, so 60
  // records make about 90,000 characters: several pieces of at most 32 K characters.
  const text = "é😀中".repeat(375);
  const records = Array.from({ length: 60 }, (_, i) => ({
    fields: { ...template.fields, id: `aud_piece_${i}` },
    content: { prompt: `${i}:${text}` },
  }));
  const { json, head } = chainAfter({ seq: 7, hash: "ab".repeat(32) }, records);
  t.true(Buffer.isBuffer(json));
  t.true(json.length > 3 * 32 * 1024);
  const rows = JSON.parse(json.toString("utf8")) as { id: string; seq: number; content: unknown }[];
  t.deepEqual(
    rows.map((r) => r.id),
    records.map((r) => r.fields.id),
  );
  t.deepEqual(
    rows.map((r) => r.seq),
    records.map((_, i) => 8 + i),
  );
  t.deepEqual(
    rows.map((r) => r.content),
    records.map((r) => r.content),
  );
  t.is(head.seq, 67);
});

test("an empty batch is an empty JSON array and leaves the head where it was", (t) => {
  const head = { seq: 3, hash: "cd".repeat(32) };
  const next = chainAfter(head, []);
  t.is(next.json.toString("utf8"), "[]");
  t.deepEqual(next.head, head);
});
