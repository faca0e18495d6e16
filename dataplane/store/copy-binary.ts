/**
 * Rows in Postgres' binary COPY format (`COPY ... FROM ... WITH (FORMAT binary)`), written into
 * pieces of at most about PIECE_BYTES for the messages to the embedded store's thread, which
 * joins them into one Blob. In this format each value comes with its length: the store neither
 * scans a value for escapes nor parses a number or a time from text, which made a row of
 * audit_records about a fifth cheaper for PGlite than the text format (docs/benchmarks.md,
 * "Issue 13, twenty-fourth pass"). Nothing is escaped here either: a value is its UTF-8 bytes.
 *
 * Each piece is a Buffer of its own memory (no pool), so it can be transferred to the store's
 * thread rather than copied. 64 KiB stays under glibc's mmap threshold (the start script's
 * 128 KiB), as the text pieces did (copy-row-pieces.ts).
 */
const PIECE_BYTES = 64 * 1024;

/** PGCOPY's signature, then the flags (int32 0) and the header extension's length (int32 0). */
const HEADER = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
const TWO_32 = 4294967296;

/** Postgres' epoch (2000-01-01 UTC) in Unix milliseconds. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;

/**
 * A time as the gateway writes it (`Date.prototype.toISOString`, or the same with up to six
 * fractional digits) as `timestamptz`'s binary value: microseconds since 2000-01-01 UTC.
 * Undefined for anything else (the caller then uses the text format, which Postgres parses).
 */
export function isoToPgMicros(iso: string): number | undefined {
  const m = ISO_UTC.exec(iso);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = ""] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC rolls an out-of-range part over; Postgres would refuse it: keep its answer.
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== iso.slice(0, 19))
    return undefined;
  return (ms - PG_EPOCH_MS) * 1000 + Number(frac.padEnd(6, "0"));
}

export class CopyBinaryPieces {
  private readonly full: Buffer[] = [];
  private buf = Buffer.allocUnsafeSlow(PIECE_BYTES);
  private at = 0;

  constructor() {
    this.at = HEADER.copy(this.buf, 0);
  }

  /** Starts a row of `fields` values; exactly that many value calls must follow. */
  row(fields: number): this {
    this.room(2);
    this.at = this.buf.writeInt16BE(fields, this.at);
    return this;
  }

  /** A text (or json) value: its UTF-8 bytes. */
  text(value: string): this {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a lone surrogate becomes U+FFFD).
    this.room(4 + value.length * 3);
    const written = this.buf.write(value, this.at + 4, "utf8");
    this.buf.writeInt32BE(written, this.at);
    this.at += 4 + written;
    return this;
  }

  textOrNull(value: string | null): this {
    return value === null ? this.null() : this.text(value);
  }

  /** A bigint (or timestamptz as microseconds): an 8-byte big-endian integer. */
  int8(value: number): this {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
    this.room(12);
    this.at = this.buf.writeInt32BE(8, this.at);
    const high = Math.floor(value / TWO_32);
    this.at = this.buf.writeInt32BE(high, this.at);
    this.at = this.buf.writeUInt32BE(value - high * TWO_32, this.at);
    return this;
  }

  null(): this {
    this.room(4);
    this.at = this.buf.writeInt32BE(-1, this.at);
    return this;
  }

  /** The pieces in order, the trailer included; joined, they are the whole COPY data. */
  pieces(): Buffer[] {
    this.room(2);
    this.at = this.buf.writeInt16BE(-1, this.at);
    return [...this.full, this.buf.subarray(0, this.at)];
  }

  /** Makes room for `bytes` more, in a new piece when this one is full. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    this.full.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafeSlow(Math.max(PIECE_BYTES, bytes));
    this.at = 0;
  }
}
