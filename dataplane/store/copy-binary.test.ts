import test from "ava";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";

test("isoToPgMicros: the gateway's own times as microseconds since 2000-01-01 UTC; anything else is left to Postgres", (t) => {
  t.is(isoToPgMicros("2000-01-01T00:00:00.000Z"), 0);
  t.is(
    isoToPgMicros("0100-01-01T00:00:00.000Z"),
    (Date.parse("0100-01-01T00:00:00.000Z") - Date.UTC(2000, 0, 1)) * 1000,
  );
  t.is(isoToPgMicros("2000-01-01T00:00:01.000Z"), 1_000_000);
  t.is(
    isoToPgMicros("2024-02-29T00:00:00.000Z"),
    (Date.UTC(2024, 1, 29) - Date.UTC(2000, 0, 1)) * 1000,
  );
  t.is(isoToPgMicros("1999-12-31T23:59:59.999Z"), -1000);
  t.is(
    isoToPgMicros("2026-01-02T03:04:05.678Z"),
    (Date.parse("2026-01-02T03:04:05.678Z") - Date.UTC(2000, 0, 1)) * 1000,
  );
  for (const other of [
    "2026-01-02T03:04:05.678+02:00", // an offset
    "2026-01-02 03:04:05.678Z", // a space
    "2026-01-02T03:04:05Z", // no fraction
    "2026-01-02T03:04:05.678901Z", // another precision
    "2026-02-30T00:00:00.000Z", // no such day (Date.UTC would roll it over)
    "2025-02-29T00:00:00.000Z", // not a leap year
    "2026-13-01T00:00:00.000Z",
    "2026-01-02T24:00:00.000Z",
    "2026-01-02T23:60:00.000Z",
    "2026-01-02T23:59:60.000Z",
    "2026-01-0xT00:00:00.000Z",
    "+275760-09-13T00:00:00.000Z",
    "0050-01-01T00:00:00.000Z", // Date.UTC would read it as 1950
    "",
  ])
    t.is(isoToPgMicros(other), undefined, other);
});

/** The pieces joined, read back field by field (the format Postgres reads). */
function readBack(pieces: Uint8Array[]): (string | bigint | null)[][] {
  const all = Buffer.concat(pieces);
  let at = 19;
  const rows: (string | bigint | null)[][] = [];
  for (;;) {
    const fields = all.readInt16BE(at);
    at += 2;
    if (fields === -1) break;
    const row: (string | bigint | null)[] = [];
    for (let i = 0; i < fields; i++) {
      const len = all.readInt32BE(at);
      at += 4;
      if (len === -1) row.push(null);
      else if (len === 8 && i === 0) row.push(all.readBigInt64BE(at));
      else row.push(all.toString("utf8", at, at + len));
      at += Math.max(len, 0);
    }
    rows.push(row);
  }
  if (at !== all.length) throw new Error("trailing bytes");
  return rows;
}

test("CopyBinaryPieces: PGCOPY's header, length-prefixed values (no escapes), 8-byte integers, nulls and the trailer, whatever the piece boundaries", (t) => {
  const rows = new CopyBinaryPieces();
  const values = ["tab\there\\N\n", "naïve ✓ 😀", "lone \ud800", "", "y".repeat(70_000)];
  for (const [i, v] of values.entries())
    rows
      .row(3)
      .int8(-(2 ** 40) + i)
      .text(v)
      .textOrNull(i % 2 ? null : v);
  const pieces = rows.pieces();
  t.true(pieces.length >= 2);
  t.deepEqual(Buffer.concat(pieces).subarray(0, 11), Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"));
  const back = readBack(pieces);
  t.deepEqual(
    back.map((r) => r[0]),
    values.map((_, i) => BigInt(-(2 ** 40) + i)),
  );
  // A lone surrogate becomes U+FFFD, as in the text format's UTF-8.
  t.deepEqual(
    back.map((r) => r[1]),
    values.map((v) => v.replace("\ud800", "\ufffd")),
  );
  t.deepEqual(
    back.map((r) => r[2]),
    values.map((v, i) => (i % 2 ? null : v.replace("\ud800", "\ufffd"))),
  );
  t.throws(() => new CopyBinaryPieces().row(1).int8(2 ** 53), { instanceOf: RangeError });
  // A long value gets a piece of its own size, not three times it.
  const long = new CopyBinaryPieces();
  long.row(1).text("z".repeat(1_000_000));
  t.true(long.pieces().every((p) => p.buffer.byteLength <= 1_000_004));
});
