import type { CopyData } from "./database.js";

/**
 * Rows in Postgres' binary COPY format (`COPY ... FROM ... WITH (FORMAT binary)`), written into
 * pieces of at most about PIECE_BYTES for the messages to the embedded store's thread, which
 * joins them into one Blob. In this format each value comes with its length: the store neither
 * scans a value for escapes nor parses a number or a time from text. For PGlite that made the
 * COPY of an audit row a fifth cheaper, and the whole append (chaining, encoding, COPY) about a
 * ninth, though the encoding here costs the event loop about a microsecond more a row than the
 * text format did (docs/benchmarks.md, "Issue 13, twenty-fourth pass"). Nothing is escaped: a
 * value is its UTF-8 bytes.
 *
 * A piece is at most 64 KiB (unless one value is longer): a message of one piece, and the
 * piece's own memory, stay under glibc's mmap threshold (the start script's 128 KiB), as the text
 * pieces did (copy-row-pieces.ts).
 */
const PIECE_BYTES = 64 * 1024;
/** Values longer than this (UTF-16 code units) are measured before they are written. */
const LONG_VALUE = 8 * 1024;

/** PGCOPY's signature, then the flags (int32 0) and the header extension's length (int32 0). */
const HEADER = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
const TWO_32 = 4294967296;

/** Postgres' epoch (2000-01-01 UTC) in Unix milliseconds. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const ZERO = 48;

/** The decimal number of `digits` characters of `s` from `at`, or NaN if any is not a digit. */
function digitsAt(s: string, at: number, digits: number): number {
  let n = 0;
  for (let i = at; i < at + digits; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/**
 * A time as the gateway writes it (`Date.prototype.toISOString`: `YYYY-MM-DDTHH:mm:ss.sssZ`) as
 * `timestamptz`'s binary value: microseconds since 2000-01-01 UTC. Undefined for anything else,
 * including a day or hour out of range (the caller then uses the text format, and Postgres
 * parses or refuses it as it would anywhere else). No regular expression and no Date object:
 * this runs once per record on the event loop.
 */
export function isoToPgMicros(iso: string): number | undefined {
  if (
    iso.length !== 24 ||
    iso[4] !== "-" ||
    iso[7] !== "-" ||
    iso[10] !== "T" ||
    iso[13] !== ":" ||
    iso[16] !== ":" ||
    iso[19] !== "." ||
    iso[23] !== "Z"
  )
    return undefined;
  const year = digitsAt(iso, 0, 4);
  const month = digitsAt(iso, 5, 2);
  const day = digitsAt(iso, 8, 2);
  const hour = digitsAt(iso, 11, 2);
  const minute = digitsAt(iso, 14, 2);
  const second = digitsAt(iso, 17, 2);
  const ms = digitsAt(iso, 20, 3);
  // NaN fails every comparison, so a non-digit anywhere ends here too. Date.UTC reads years 0-99
  // as 1900-1999: those are left to Postgres as well.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month))) return undefined;
  if (!(hour <= 23 && minute <= 59 && second <= 59 && ms >= 0 && year >= 100)) return undefined;
  return (Date.UTC(year, month - 1, day, hour, minute, second, ms) - PG_EPOCH_MS) * 1000;
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
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a lone surrogate becomes U+FFFD); a long
    // value (captured content) is measured, so its piece is not three times its size.
    this.room(4 + (value.length > LONG_VALUE ? Buffer.byteLength(value) : value.length * 3));
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

  /**
   * The pieces as a COPY's data, to be used once: every piece is a buffer of its own
   * (allocUnsafeSlow, never Node's shared pool), so the data may be handed over (database.ts).
   */
  copyData(): CopyData {
    return { format: "binary", pieces: this.pieces(), handOver: true };
  }

  /** Makes room for `bytes` more, in a new piece when this one is full. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    this.full.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafeSlow(Math.max(PIECE_BYTES, bytes));
    this.at = 0;
  }
}
