import { mkdir, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { claimDirectory, LOCK_FILE } from "./audit-spool-owner.js";
import { RecentAppends } from "./audit-spool-recent.js";
import { encodeLines, parseLines, type SpooledLine } from "./audit-spool-lines.js";
import {
  createSegment,
  isPreallocated,
  openPreparedSegment,
  preallocateSegment,
  readSegment,
  removeSegment,
  SEGMENT_BYTES,
  segmentNumbers,
  segmentRecordBytes,
  SpoolFullError,
  syncOnWrite,
  type Segment,
  type SpoolCursor,
} from "./audit-spool-segments.js";

export type { SpooledLine } from "./audit-spool-lines.js";
export { SpoolFullError, type SpoolCursor } from "./audit-spool-segments.js";

const READ_CHUNK = 256 * 1024;
/**
 * The local append-only audit log: JSON lines in numbered segment files, each append durable
 * (O_DSYNC write, or write + fdatasync) before it is acknowledged (the writer passes every record
 * that arrived meanwhile in one append: group commit). The next segment is preallocated in the
 * background (audit-spool-segments.ts), so an append overwrites zeros rather than grows a file.
 * The ingester reads the log back from a cursor and releases what the store holds; segments
 * wholly behind the cursor are deleted. Bounded: `backlogBytes` (appended, not yet released) may
 * not pass `maxBytes`. One process per directory.
 */
export class AuditSpool {
  private readonly segments: Segment[] = [];
  private writing: { number: number; file: FileHandle } | undefined;
  private released: SpoolCursor;
  /** Appends run one at a time; reads never look past a segment's durable bytes. */
  private queue: Promise<unknown> = Promise.resolve();
  private listeners: (() => void)[] = [];
  /** Bytes appended, and bytes released, since the log was opened (found at start included). */
  private appendedTotal = 0;
  private releasedTotal = 0;
  private refused = false;
  /** Recent appends kept in memory, so the ingester need not read and parse them back. */
  private readonly recent = new RecentAppends();
  /** The next segment, being preallocated (resolves true once ready to be written). */
  private spare: { number: number; ready: Promise<boolean> } | undefined;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    this.released = { segment: 0, offset: 0 };
  }

  static async open(dir: string, maxBytes: number): Promise<AuditSpool> {
    await mkdir(dir, { recursive: true });
    await claimDirectory(dir);
    const spool = new AuditSpool(dir, maxBytes);
    for (const number of await segmentNumbers(dir)) {
      const bytes = await segmentRecordBytes(dir, number);
      spool.segments.push({ number, bytes });
      spool.appendedTotal += bytes;
    }
    // An empty, preallocated last segment (the spare of the run before) is the spare again.
    const last = spool.segments.at(-1);
    if (last?.bytes === 0 && (await isPreallocated(dir, last.number))) {
      spool.segments.pop();
      spool.spare = { number: last.number, ready: Promise.resolve(true) };
    } else spool.prepareSpare();
    spool.released = { segment: spool.segments[0]?.number ?? 1, offset: 0 };
    return spool;
  }

  /** Bytes appended and not yet released (in the store or quarantined). */
  get backlogBytes(): number {
    return this.appendedTotal - this.releasedTotal;
  }

  /** A position that grows with every append: what has been appended so far. */
  get appendedPosition(): number {
    return this.appendedTotal;
  }

  /** A position that grows with every release; equal to appendedPosition when caught up. */
  get releasedPosition(): number {
    return this.releasedTotal;
  }

  isEmpty(): boolean {
    return this.backlogBytes === 0;
  }

  /** Room for more: false from a refused append until the ingester releases something. */
  hasRoom(): boolean {
    return !this.refused && this.backlogBytes < this.maxBytes;
  }

  /** Called after every durable append (the ingester wakes up). */
  onAppend(listener: () => void): void {
    this.listeners.push(listener);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Appends durably (O_DSYNC, or fdatasync); resolves only once the records are on disk. */
  append(records: readonly PendingAuditRecord[]): Promise<void> {
    return this.serial(() => this.appendNow(records));
  }

  private async appendNow(records: readonly PendingAuditRecord[]): Promise<void> {
    const data = encodeLines(records);
    if (this.backlogBytes + data.length > this.maxBytes) {
      this.refused = true;
      throw new SpoolFullError();
    }
    const last = this.segments.at(-1);
    const full = last !== undefined && last.bytes > 0 && last.bytes + data.length > SEGMENT_BYTES;
    if (!this.writing || !last || full) await this.rotate();
    const writing = this.writing as NonNullable<typeof this.writing>;
    const segment = this.segments.at(-1) as Segment;
    try {
      const { bytesWritten } = await writing.file.write(data, 0, data.length, segment.bytes);
      // A short write (disk full mid-way) is a failed append: the tail it left is torn.
      if (bytesWritten !== data.length) throw new Error("short write to the audit log");
      if (!syncOnWrite) await writing.file.datasync();
    } catch (err) {
      // What was written may be torn: continue in a fresh segment (the reader skips a torn tail).
      await this.closeWriting().catch(() => undefined);
      throw err;
    }
    this.recent.remember({
      segment: segment.number,
      offset: segment.bytes,
      end: segment.bytes + data.length,
      records,
    });
    segment.bytes += data.length;
    this.appendedTotal += data.length;
    for (const listener of this.listeners) listener();
  }

  /**
   * Reads whole lines from `cursor` on, up to about `maxBytes` (at least one line), never past
   * what is durable. Returns the lines and the cursor after them (moved to the next segment at
   * the end of a finished one).
   */
  async read(
    cursor: SpoolCursor,
    maxBytes = READ_CHUNK,
  ): Promise<{ lines: SpooledLine[]; next: SpoolCursor; bytes: number }> {
    let at = { ...cursor };
    if (at.segment < this.released.segment) at = { ...this.released };
    for (;;) {
      const index = this.segments.findIndex((s) => s.number >= at.segment);
      const segment = this.segments[index];
      if (!segment) return { lines: [], next: at, bytes: 0 };
      if (segment.number !== at.segment) at = { segment: segment.number, offset: 0 };
      const finished = index < this.segments.length - 1 || this.writing?.number !== segment.number;
      const available = segment.bytes - at.offset;
      if (available <= 0) {
        const following = this.segments[index + 1];
        if (!finished || !following) return { lines: [], next: at, bytes: 0 };
        at = { segment: following.number, offset: 0 };
        continue;
      }
      const remembered = this.recent.readFrom(at, maxBytes);
      if (remembered) return remembered;
      const chunk = await readSegment(this.dir, segment.number, at.offset, available, maxBytes);
      const end = chunk.lastIndexOf(10);
      if (end < 0) {
        // A torn tail (from a crash mid-append, never acknowledged) ends a finished segment.
        if (!finished) return { lines: [], next: at, bytes: 0 };
        const lines = parseLines(chunk.toString("utf8")).filter((l) => "record" in l);
        return {
          lines,
          next: { segment: segment.number, offset: segment.bytes },
          bytes: chunk.length,
        };
      }
      const lines = parseLines(chunk.subarray(0, end).toString("utf8"));
      return {
        lines,
        next: { segment: segment.number, offset: at.offset + end + 1 },
        bytes: end + 1,
      };
    }
  }

  /** Marks everything before `cursor` as in the store; deletes segments wholly behind it. */
  release(cursor: SpoolCursor, bytes: number): Promise<void> {
    return this.serial(async () => {
      this.releasedTotal = Math.min(this.appendedTotal, this.releasedTotal + bytes);
      if (bytes > 0) this.refused = false;
      this.released = { ...cursor };
      this.recent.forgetBefore(cursor);
      while (this.segments.length > 0) {
        const first = this.segments[0] as Segment;
        if (first.number >= cursor.segment || this.writing?.number === first.number) break;
        await removeSegment(this.dir, first.number);
        this.segments.shift();
      }
    });
  }

  close(): Promise<void> {
    return this.serial(async () => {
      await this.closeWriting();
      await this.spare?.ready;
      await rm(path.join(this.dir, LOCK_FILE), { force: true });
    });
  }

  /** Resolves true once the next segment is preallocated (false: it will be created empty). */
  spareReady(): Promise<boolean> {
    return this.spare?.ready ?? Promise.resolve(false);
  }

  /** Starts preallocating the segment after the last one (in the background, off the append path). */
  private prepareSpare(): void {
    const number = (this.segments.at(-1)?.number ?? 0) + 1;
    const ready = preallocateSegment(this.dir, number).then(
      () => true,
      // Not ready (disk full, say): that segment is created empty when it is needed.
      () => removeSegment(this.dir, number).then(() => false),
    );
    this.spare = { number, ready: ready.catch(() => false) };
  }

  private async rotate(): Promise<void> {
    await this.closeWriting();
    const number = this.spare?.number ?? (this.segments.at(-1)?.number ?? 0) + 1;
    // Waits only when appends outran the preallocation (at most one segment's zeros).
    const prepared = this.spare?.number === number && (await this.spare.ready);
    this.spare = undefined;
    const file = prepared
      ? await openPreparedSegment(this.dir, number)
      : await createSegment(this.dir, number);
    this.segments.push({ number, bytes: 0 });
    this.writing = { number, file };
    this.prepareSpare();
  }

  private async closeWriting(): Promise<void> {
    const w = this.writing;
    this.writing = undefined;
    await w?.file.close();
  }
}
