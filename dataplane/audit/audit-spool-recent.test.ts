import test from "ava";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { goldenRecords } from "../../test/support/golden-records.js";
import { encodeLines, parseLines } from "./audit-spool-lines.js";
import { RecentAppends } from "./audit-spool-recent.js";

const template = goldenRecords()[0] as PendingAuditRecord;
const record = (id: string): PendingAuditRecord => ({
  ...template,
  fields: { ...template.fields, id },
});

/** An append of these records at `offset` of `segment`, as the spool remembers it. */
function append(segment: number, offset: number, ids: string[]) {
  const data = encodeLines(ids.map(record));
  return { segment, offset, end: offset + data.length, data, lines: ids.length };
}

const idsOf = (data: Uint8Array | undefined) =>
  parseLines(Buffer.from(data ?? []).toString("utf8")).map((l) =>
    "record" in l ? l.record.fields.id : null,
  );

test("recent appends are read back from an exact append boundary, consecutive ones together, up to about maxBytes", (t) => {
  const recent = new RecentAppends();
  const first = append(1, 0, ["a", "b"]);
  const second = append(1, first.end, ["c"]);
  recent.remember(first);
  recent.remember(second);
  recent.remember(append(2, 0, ["d"]));
  const all = recent.readFrom({ segment: 1, offset: 0 }, 1_000_000);
  t.deepEqual(idsOf(all?.data), ["a", "b", "c"], "stops at the segment's end");
  t.is(all?.lines, 3);
  t.deepEqual(all?.next, { segment: 1, offset: second.end });
  t.is(all?.bytes, second.end);
  t.is(all?.data.byteLength, second.end, "exactly the lines' bytes");
  t.is(all?.data.buffer.byteLength, second.end, "in a buffer of their own (what is posted)");
  const capped = recent.readFrom({ segment: 1, offset: 0 }, first.end);
  t.deepEqual(
    capped?.next,
    { segment: 1, offset: first.end },
    "the first append that reaches maxBytes ends the read",
  );
  t.deepEqual(idsOf(capped?.data), ["a", "b"]);
  t.is(
    recent.readFrom({ segment: 1, offset: 40 }, 1_000),
    undefined,
    "not a boundary: read the file",
  );
});

test("released appends are forgotten, and memory is bounded to about 8 MiB of log", (t) => {
  const recent = new RecentAppends();
  const a = append(1, 0, ["a"]);
  const b = append(1, a.end, ["b"]);
  recent.remember(a);
  recent.remember(b);
  recent.forgetBefore({ segment: 1, offset: a.end });
  t.is(recent.readFrom({ segment: 1, offset: 0 }, 1_000), undefined);
  t.deepEqual(idsOf(recent.readFrom({ segment: 1, offset: a.end }, 1_000)?.data), ["b"]);

  const big = new RecentAppends();
  const mib = 1024 * 1024;
  for (let i = 0; i < 10; i++) {
    const data = new Uint8Array(mib).fill(32);
    big.remember({ segment: 1, offset: i * mib, end: (i + 1) * mib, data, lines: 1 });
  }
  t.is(big.readFrom({ segment: 1, offset: 0 }, 100 * mib), undefined, "the oldest were dropped");
  t.is(big.readFrom({ segment: 1, offset: 2 * mib }, 100 * mib)?.lines, 8);
});
