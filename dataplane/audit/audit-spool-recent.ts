import type { SpoolCursor } from "./audit-spool-segments.js";

/** At most this many bytes of recent appends are kept. */
const RECENT_BYTES = 8 * 1024 * 1024;

interface RecentAppend {
  segment: number;
  offset: number;
  end: number;
  /** The bytes appended (whole lines), and how many lines they hold. */
  data: Uint8Array;
  lines: number;
}

/** What the log holds from a cursor on: whole lines, in a buffer of their own. */
export interface SpoolRead {
  data: Uint8Array;
  /** How many lines `data` holds. */
  lines: number;
  next: SpoolCursor;
  bytes: number;
}

/**
 * The audit log's latest appends, kept in memory with their bytes (about the last 8 MiB of the
 * log), so the ingester, which usually reads just behind the writer, need not read them back
 * from the segment files.
 */
export class RecentAppends {
  private recent: RecentAppend[] = [];
  private bytes = 0;

  remember(append: RecentAppend): void {
    this.recent.push(append);
    this.bytes += append.end - append.offset;
    while (this.bytes > RECENT_BYTES && this.recent.length > 1) this.forgetOldest();
  }

  /** Forgets the appends that end at or before `cursor` (released to the store). */
  forgetBefore(cursor: SpoolCursor): void {
    for (;;) {
      const first = this.recent[0];
      if (!first) return;
      const behind =
        first.segment < cursor.segment ||
        (first.segment === cursor.segment && first.end <= cursor.offset);
      if (!behind) return;
      this.forgetOldest();
    }
  }

  /** Consecutive recent appends from exactly `at` on (up to about `maxBytes`), if remembered. */
  readFrom(at: SpoolCursor, maxBytes: number): SpoolRead | undefined {
    const first = this.recent.findIndex((r) => r.segment === at.segment && r.offset === at.offset);
    if (first < 0) return undefined;
    let end = at.offset;
    let last = first;
    let lines = 0;
    for (let i = first; i < this.recent.length; i++) {
      const r = this.recent[i] as RecentAppend;
      if (
        r.segment !== at.segment ||
        r.offset !== end ||
        (i > first && end - at.offset >= maxBytes)
      )
        break;
      end = r.end;
      lines += r.lines;
      last = i;
    }
    // One buffer of its own: what crosses to the store's thread is exactly these bytes.
    const data = new Uint8Array(end - at.offset);
    for (let i = first; i <= last; i++) {
      const r = this.recent[i] as RecentAppend;
      data.set(r.data, r.offset - at.offset);
    }
    return { data, lines, next: { segment: at.segment, offset: end }, bytes: end - at.offset };
  }

  private forgetOldest(): void {
    const first = this.recent.shift();
    if (first) this.bytes -= first.end - first.offset;
  }
}
