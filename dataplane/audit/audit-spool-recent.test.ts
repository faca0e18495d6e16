import test from "ava";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { goldenRecords } from "../../test/support/golden-records.js";
import { RecentAppends } from "./audit-spool-recent.js";

const template = goldenRecords()[0] as PendingAuditRecord;
const record = (id: string): PendingAuditRecord => ({
  ...template,
  fields: { ...template.fields, id },
});

test("recent appends are read back from an exact append boundary, consecutive ones together, up to about maxBytes", (t) => {
  const recent = new RecentAppends();
  recent.remember({ segment: 1, offset: 0, end: 100, records: [record("a"), record("b")] });
  recent.remember({ segment: 1, offset: 100, end: 250, records: [record("c")] });
  recent.remember({ segment: 2, offset: 0, end: 50, records: [record("d")] });
  const all = recent.readFrom({ segment: 1, offset: 0 }, 1_000);
  t.deepEqual(
    all?.lines.map((l) => ("record" in l ? l.record.fields.id : null)),
    ["a", "b", "c"],
    "stops at the segment's end",
  );
  t.deepEqual(all?.next, { segment: 1, offset: 250 });
  t.is(all?.bytes, 250);
  const capped = recent.readFrom({ segment: 1, offset: 0 }, 100);
  t.deepEqual(
    capped?.next,
    { segment: 1, offset: 100 },
    "the first append that reaches maxBytes ends the read",
  );
  t.is(
    recent.readFrom({ segment: 1, offset: 40 }, 1_000),
    undefined,
    "not a boundary: read the file",
  );
});

test("released appends are forgotten, and memory is bounded to about 8 MiB of log", (t) => {
  const recent = new RecentAppends();
  recent.remember({ segment: 1, offset: 0, end: 100, records: [record("a")] });
  recent.remember({ segment: 1, offset: 100, end: 200, records: [record("b")] });
  recent.forgetBefore({ segment: 1, offset: 100 });
  t.is(recent.readFrom({ segment: 1, offset: 0 }, 1_000), undefined);
  t.is(recent.readFrom({ segment: 1, offset: 100 }, 1_000)?.lines.length, 1);

  const big = new RecentAppends();
  const mib = 1024 * 1024;
  for (let i = 0; i < 10; i++) {
    big.remember({ segment: 1, offset: i * mib, end: (i + 1) * mib, records: [record(`r${i}`)] });
  }
  t.is(big.readFrom({ segment: 1, offset: 0 }, 100 * mib), undefined, "the oldest were dropped");
  t.is(big.readFrom({ segment: 1, offset: 2 * mib }, 100 * mib)?.lines.length, 8);
});
