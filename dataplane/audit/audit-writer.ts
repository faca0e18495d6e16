import { GatewayError } from "../core/errors.js";
import type { Logger } from "../observability/logger.js";
import type { AuditRepository, PendingAuditRecord } from "../store/audit-repository.js";
import type { Database } from "../store/database.js";
import { SpoolFullError, type AuditSpool } from "./audit-spool.js";

interface Waiting {
  record: PendingAuditRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface AuditWriterOptions {
  /** Largest group commit. */
  maxBatch: number;
  /** How often to try to replay the spool while the store is down. */
  replayIntervalMs: number;
}

/**
 * Makes audit records durable with group commit: appends queued while a commit runs are written
 * together in the next transaction. When the store fails, records go to the fsync'd spool (and
 * keep going there, in order, until the spool has been replayed into the store). When neither can
 * take a record, append() rejects with 503 and `saturated` tells the pipeline to refuse new calls.
 */
export class AuditWriter {
  private queue: Waiting[] = [];
  private flushing = false;
  private mode: "store" | "spool";
  private replayTimer: NodeJS.Timeout | undefined;
  private replaying: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly repo: AuditRepository,
    private readonly spool: AuditSpool,
    private readonly logger: Logger,
    private readonly options: AuditWriterOptions = { maxBatch: 500, replayIntervalMs: 1_000 },
  ) {
    this.mode = spool.isEmpty() ? "store" : "spool";
  }

  start(): void {
    this.replayTimer = setInterval(() => void this.replay(), this.options.replayIntervalMs);
    this.replayTimer.unref();
    if (this.mode === "spool") void this.replay();
  }

  /** True when records can be neither committed nor spooled: new calls must be refused. */
  get saturated(): boolean {
    return this.mode === "spool" && !this.spool.hasRoom();
  }

  get spooling(): boolean {
    return this.mode === "spool";
  }

  /** Resolves once the record is committed to the store or fsync'd to the spool. */
  append(record: PendingAuditRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.maxBatch);
        await this.persist(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async persist(batch: Waiting[]): Promise<void> {
    const records = batch.map((w) => w.record);
    if (this.mode === "store") {
      try {
        await this.db.transaction((tx) => this.repo.appendBatch(tx, records));
        for (const w of batch) w.resolve();
        return;
      } catch (err) {
        this.mode = "spool";
        this.logger.error(
          { err: String(err) },
          "audit store unavailable; spooling audit records locally",
        );
      }
    }
    try {
      await this.spool.append(records);
      for (const w of batch) w.resolve();
    } catch (err) {
      const error =
        err instanceof SpoolFullError
          ? new GatewayError(
              "service_unavailable",
              "audit evidence cannot be recorded right now; retry later",
              {
                headers: { "retry-after": "5" },
              },
            )
          : new GatewayError("service_unavailable", "audit evidence cannot be recorded right now", {
              cause: err,
            });
      for (const w of batch) w.reject(error);
    }
  }

  /** Moves spooled records into the store, oldest first; back to store mode once drained. */
  replay(): Promise<void> {
    if (this.replaying || this.mode === "store" || this.stopped)
      return this.replaying ?? Promise.resolve();
    this.replaying = (async () => {
      try {
        for (;;) {
          const segment = await this.spool.oldest();
          if (!segment) break;
          await this.db.transaction((tx) =>
            this.repo.appendBatch(tx, segment.records, { dedupe: true }),
          );
          await this.spool.remove(segment.name);
        }
        // A batch being written to the spool right now would be stranded by a switch: wait for it.
        if (this.spool.isEmpty() && !this.flushing) {
          this.mode = "store";
          this.logger.info("audit spool replayed into the store");
        }
      } catch {
        // Store still down: try again on the next tick.
      } finally {
        this.replaying = undefined;
      }
    })();
    return this.replaying;
  }

  /** Flushes what is queued (to the store or the spool) and stops replaying. */
  async stop(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      if (!this.flushing) await this.flush();
      else await new Promise((r) => setTimeout(r, 5));
    }
    if (this.mode === "spool") await this.replay();
    this.stopped = true;
    if (this.replayTimer) clearInterval(this.replayTimer);
    await this.spool.close();
  }
}
