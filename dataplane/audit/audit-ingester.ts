import { appendFile, open } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../observability/logger.js";
import type { AuditQuarantineRepository } from "../store/audit-quarantine-repository.js";
import type { AuditRepository, PendingAuditRecord } from "../store/audit-repository.js";
import type { Database } from "../store/database.js";
import type { AuditSpool, SpoolCursor, SpooledLine } from "./audit-spool.js";
import { lingerAfter, type LingerPolicy } from "./ingest-linger.js";
import { needsEscape } from "./storable-record.js";

export interface IngesterOptions {
  /** Bytes of log read per store transaction (one multi-row insert per customer). */
  batchBytes: number;
  /** First and longest wait before retrying while the store is unreachable. */
  retryMs: number;
  maxRetryMs: number;
  /** Called once per quarantined record (the metric). */
  onQuarantine: () => void;
  /**
   * After a small batch, how long to let records gather before the next one (fewer, larger store
   * transactions under load; ingest-linger.ts); skipped while a reader waits for ingestion.
   * Default none.
   */
  linger?: LingerPolicy;
}

/** An error that says the record itself cannot be stored (not that the store is away). */
export function refusesRecord(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
    return code.startsWith("22") || code.startsWith("54") || ["23502", "23514"].includes(code);
  }
  return err instanceof RangeError || err instanceof TypeError || err instanceof SyntaxError;
}

const errorCode = (err: unknown): string | null => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
};

const idOf = (r: PendingAuditRecord, key: "id" | "customer_id"): string | null => {
  const v = r.fields[key];
  return typeof v === "string" && !needsEscape(v) ? v : null;
};

/**
 * Moves the local audit log into the store in batches, extending each customer's hash chain there
 * (AuditRepository.append checks or locks the chain head, so replicas ingesting at once still form
 * one chain). While the store is unreachable it waits and retries, growing the wait. A record the
 * store refuses (a data error on that record alone, with the store answering) is quarantined: kept
 * in audit_quarantine (or, failing that, in quarantine.jsonl beside the log), logged as an error
 * and counted; ingestion moves on.
 */
export class AuditIngester {
  private cursor: SpoolCursor = { segment: 0, offset: 0 };
  /** Records up to this log position may already be in the store: insert them with dedupe. */
  private dedupeThrough: number;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopWake: (() => void) | undefined;
  private stopped = false;
  private failing = false;
  /** An append arrived since the loop last looked. */
  private woken = false;
  private waiters: { position: number; resolve: () => void }[] = [];

  constructor(
    private readonly db: Database,
    private readonly repo: AuditRepository,
    private readonly quarantine: AuditQuarantineRepository,
    private readonly spool: AuditSpool,
    private readonly quarantineDir: string,
    private readonly logger: Logger,
    private readonly options: IngesterOptions,
  ) {
    this.dedupeThrough = spool.appendedPosition;
    spool.onAppend(() => {
      this.woken = true;
      this.wake?.();
    });
  }

  /** True while the last attempt to reach the store failed. */
  get storeFailing(): boolean {
    return this.failing;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Resolves once everything appended before the call is in the store, or after `timeoutMs`. */
  caughtUp(timeoutMs: number): Promise<void> {
    const position = this.spool.appendedPosition;
    if (this.spool.releasedPosition >= position) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { position, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, timeoutMs).unref();
    });
  }

  /** Ingests what is in the log (while the store answers, for at most `graceMs`), then stops. */
  async stop(graceMs: number): Promise<void> {
    const until = Date.now() + graceMs;
    while (!this.spool.isEmpty() && !this.failing && Date.now() < until) {
      await this.caughtUp(Math.max(1, until - Date.now()));
    }
    this.stopped = true;
    this.stopWake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    let retryMs = this.options.retryMs;
    let lastReadAt = performance.now();
    while (!this.stopped) {
      const read = await this.spool.read(this.cursor, this.options.batchBytes);
      const readAt = performance.now();
      const sinceLastRead = readAt - lastReadAt;
      lastReadAt = readAt;
      if (read.bytes === 0) {
        this.cursor = read.next;
        await this.sleep(60_000, true);
        continue;
      }
      const start = this.spool.releasedPosition;
      try {
        await this.ingest(read.lines, start < this.dedupeThrough);
        this.failing = false;
        retryMs = this.options.retryMs;
        this.cursor = read.next;
        await this.spool.release(read.next, read.bytes);
        this.notifyWaiters();
        const policy = this.options.linger;
        const linger = policy ? lingerAfter(policy, read.lines.length, sinceLastRead) : 0;
        if (linger > 0 && read.bytes < this.options.batchBytes / 4 && this.waiters.length === 0)
          await this.sleep(linger, false);
      } catch (err) {
        if (!this.failing) {
          this.logger.error(
            { err: String(err) },
            "audit store unreachable; records wait in the local log",
          );
        }
        this.failing = true;
        this.dedupeThrough = Math.max(this.dedupeThrough, start + read.bytes);
        await this.sleep(retryMs, false);
        retryMs = Math.min(this.options.maxRetryMs, retryMs * 2);
      }
    }
  }

  /** One commit for the batch; when the store refuses it, record by record. */
  private async ingest(lines: SpooledLine[], dedupe: boolean): Promise<void> {
    const records: PendingAuditRecord[] = [];
    const unreadable: string[] = [];
    for (const line of lines) {
      if ("record" in line) records.push(line.record);
      else unreadable.push(line.unreadable);
    }
    await this.ingestRecords(records, dedupe);
    for (const line of unreadable) await this.putAside(null, line, "unreadable log line", null);
  }

  private async ingestRecords(records: PendingAuditRecord[], dedupe: boolean): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.repo.append(this.db, records, { dedupe });
      return;
    } catch (err) {
      if (!refusesRecord(err) || !(await this.db.ping())) throw err;
    }
    for (const record of records) {
      try {
        await this.repo.append(this.db, [record], { dedupe: true });
      } catch (err) {
        if (!refusesRecord(err) || !(await this.db.ping())) throw err;
        await this.putAside(record, JSON.stringify(record), String(err), errorCode(err));
      }
    }
  }

  private async putAside(
    record: PendingAuditRecord | null,
    line: string,
    reason: string,
    code: string | null,
  ): Promise<void> {
    const entry = {
      recordId: record ? idOf(record, "id") : null,
      customerId: record ? idOf(record, "customer_id") : null,
      reason: reason.slice(0, 1000),
      errorCode: code,
      line,
    };
    try {
      await this.quarantine.add(entry);
    } catch {
      const file = path.join(this.quarantineDir, "quarantine.jsonl");
      await appendFile(file, `${JSON.stringify({ ...entry, at: new Date().toISOString() })}\n`);
      const handle = await open(file, "r");
      await handle.sync().finally(() => handle.close());
    }
    this.options.onQuarantine();
    this.logger.error(
      { record_id: entry.recordId, customer_id: entry.customerId, reason: entry.reason, code },
      "audit record quarantined: the store refused it (see audit_quarantine)",
    );
  }

  private notifyWaiters(): void {
    const at = this.spool.releasedPosition;
    const ready = this.waiters.filter((w) => w.position <= at);
    this.waiters = this.waiters.filter((w) => w.position > at);
    for (const w of ready) w.resolve();
  }

  /** Waits `ms`, or less when stopped (or, with `onAppend`, when a record is appended). */
  private async sleep(ms: number, onAppend: boolean): Promise<void> {
    if (this.stopped || (onAppend && this.woken)) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = onAppend ? done : () => this.stopped && done();
      this.stopWake = done;
    });
    this.wake = undefined;
    this.woken = false;
  }
}
