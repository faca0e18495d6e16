import { mkdir, open, readdir, readFile, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { PendingAuditRecord } from "../store/audit-repository.js";

const SEGMENT_BYTES = 4 * 1024 * 1024;

export class SpoolFullError extends Error {
  constructor() {
    super("audit spool is full");
    this.name = "SpoolFullError";
  }
}

/**
 * A local append-only spool for audit records while the store is unreachable: JSON lines in
 * numbered segment files, fsync'd before an append is acknowledged. Bounded in total size.
 */
export class AuditSpool {
  private current: { file: FileHandle; name: string; bytes: number } | undefined;
  /** Appends, reads and removals run one at a time (a replay must not close a segment mid-write). */
  private queue: Promise<unknown> = Promise.resolve();
  private totalBytes = 0;
  private nextSegment = 1;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  static async open(dir: string, maxBytes: number): Promise<AuditSpool> {
    await mkdir(dir, { recursive: true });
    const spool = new AuditSpool(dir, maxBytes);
    for (const name of await spool.segments()) {
      spool.totalBytes += (await stat(path.join(dir, name))).size;
      spool.nextSegment = Math.max(spool.nextSegment, Number.parseInt(name, 10) + 1);
    }
    return spool;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  isEmpty(): boolean {
    return this.totalBytes === 0;
  }

  /** Room for roughly one more batch. */
  hasRoom(): boolean {
    return this.totalBytes < this.maxBytes;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Appends and fsyncs; resolves only once the records are on disk. */
  append(records: readonly PendingAuditRecord[]): Promise<void> {
    return this.serial(() => this.appendNow(records));
  }

  private async appendNow(records: readonly PendingAuditRecord[]): Promise<void> {
    const data = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(""), "utf8");
    if (this.totalBytes + data.length > this.maxBytes) throw new SpoolFullError();
    if (!this.current || this.current.bytes >= SEGMENT_BYTES) await this.rotate();
    const seg = this.current as NonNullable<typeof this.current>;
    await seg.file.write(data);
    await seg.file.sync();
    seg.bytes += data.length;
    this.totalBytes += data.length;
  }

  /** The oldest segment's records (closing it first if it is the one being written). */
  oldest(): Promise<{ name: string; records: PendingAuditRecord[] } | undefined> {
    return this.serial(() => this.oldestNow());
  }

  private async oldestNow(): Promise<{ name: string; records: PendingAuditRecord[] } | undefined> {
    const [name] = await this.segments();
    if (!name) return undefined;
    if (this.current?.name === name) await this.closeCurrent();
    const text = await readFile(path.join(this.dir, name), "utf8");
    const records: PendingAuditRecord[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        records.push(JSON.parse(line) as PendingAuditRecord);
      } catch {
        // A torn last line from a crash mid-write was never acknowledged: skip it.
      }
    }
    return { name, records };
  }

  /** Removes a segment whose records are now in the store. */
  remove(name: string): Promise<void> {
    return this.serial(() => this.removeNow(name));
  }

  private async removeNow(name: string): Promise<void> {
    const file = path.join(this.dir, name);
    const size = (await stat(file)).size;
    await rm(file, { force: true });
    this.totalBytes = Math.max(0, this.totalBytes - size);
  }

  close(): Promise<void> {
    return this.serial(() => this.closeCurrent());
  }

  private async segments(): Promise<string[]> {
    return (await readdir(this.dir)).filter((n) => /^\d{8}\.jsonl$/.test(n)).sort();
  }

  private async rotate(): Promise<void> {
    await this.closeCurrent();
    const name = `${String(this.nextSegment++).padStart(8, "0")}.jsonl`;
    const file = await open(path.join(this.dir, name), "a");
    this.current = { file, name, bytes: 0 };
  }

  private async closeCurrent(): Promise<void> {
    const c = this.current;
    this.current = undefined;
    await c?.file.close();
  }
}
