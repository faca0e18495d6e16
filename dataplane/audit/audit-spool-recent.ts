import type { PendingAuditRecord } from "../store/audit-repository.js";
import type { SpooledLine } from "./audit-spool-lines.js";
import type { SpoolCursor } from "./audit-spool-segments.js";

/** At most this many bytes of recent appends are kept. */
const RECENT_BYTES = 8 * 1024 * 1024;

interface RecentAppend {
  segment: number;
  offset: number;
  end: number;
  records: readonly PendingAuditRecord[];
}

/**
 * The audit log's latest appends, kept in memory with their records (about the last 8 MiB of the
 * log), so the ingester, which usually reads just behind the writer, need not read and parse them
 * back from the segment files.
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
  readFrom(
    at: SpoolCursor,
    maxBytes: number,
  ): { lines: SpooledLine[]; next: SpoolCursor; bytes: number } | undefined {
    let i = this.recent.findIndex((r) => r.segment === at.segment && r.offset === at.offset);
    if (i < 0) return undefined;
    const lines: SpooledLine[] = [];
    let end = at.offset;
    for (; i < this.recent.length; i++) {
      const r = this.recent[i] as RecentAppend;
      if (
        r.segment !== at.segment ||
        r.offset !== end ||
        (lines.length > 0 && end - at.offset >= maxBytes)
      )
        break;
      for (const record of r.records) lines.push({ record });
      end = r.end;
    }
    return { lines, next: { segment: at.segment, offset: end }, bytes: end - at.offset };
  }

  private forgetOldest(): void {
    const first = this.recent.shift();
    if (first) this.bytes -= first.end - first.offset;
  }
}
