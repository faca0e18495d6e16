import { GatewayError } from "../core/errors.js";
import type { Logger } from "../observability/logger.js";
import type { AuditRepository, PendingAuditRecord } from "../store/audit-repository.js";
import type { Database } from "../store/database.js";
import type { AuditIngester } from "./audit-ingester.js";
import { SpoolFullError, type AuditSpool } from "./audit-spool.js";
import { awaitActively } from "./active-wait.js";

interface Waiting {
  record: PendingAuditRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * When a record counts as durable (the reply waits for that):
 * - `local`: synced to the local log (O_DSYNC write); the ingester moves it into the store in the background.
 * - `store`: committed to the store; the local log only while the store fails (or has a backlog).
 */
export type AuditDurability = "local" | "store";

export interface AuditWriterOptions {
  durability: AuditDurability;
  /** Largest group commit. */
  maxBatch: number;
  /** After a failed append to the local log, how long new calls are refused before retrying. */
  brokenMs: number;
  /**
   * How long a lone record's synced write to the local log is waited for with the event loop kept
   * turning (active-wait.ts; only while `waitActivelyWhen`'s condition holds); 0: never.
   */
  activeWaitMs: number;
}

/** 503: the call cannot be audited now (the writer refused, or the pipeline is saturated). */
export const auditUnavailable = (cause?: unknown) =>
  new GatewayError(
    "service_unavailable",
    "audit evidence cannot be recorded right now; retry later",
    {
      headers: { "retry-after": "5" },
      ...(cause === undefined ? {} : { cause }),
    },
  );

/**
 * Makes audit records durable with group commit: appends queued while one is being made durable
 * go together in the next one (one synced write, or one store transaction). In `local` mode every
 * record goes to the log; in `store` mode to the store, and to the log while the store fails or
 * records still wait in the log (so a customer's records keep their order). When neither can take
 * a record, append() rejects with 503 and `saturated` tells the pipeline (and /readyz) so.
 */
export class AuditWriter {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | undefined;
  private brokenUntil = 0;
  /** The latest append: once it is durable, so is every earlier one (batches run in order). */
  private latest: Promise<void> = Promise.resolve();
  private waitActively: () => boolean = () => false;

  constructor(
    private readonly db: Database,
    private readonly repo: AuditRepository,
    private readonly spool: AuditSpool,
    readonly ingester: AuditIngester,
    private readonly logger: Logger,
    private readonly options: AuditWriterOptions,
  ) {}

  start(): void {
    this.ingester.start();
  }

  /**
   * When a write to the local log that holds one record is waited for actively (the event loop
   * kept turning, for at most `activeWaitMs`): the app passes "no other call is in progress", so
   * only a lone caller's reply gets it, and a loaded gateway never spends a core on it.
   */
  waitActivelyWhen(condition: () => boolean): void {
    this.waitActively = condition;
  }

  get durability(): AuditDurability {
    return this.options.durability;
  }

  /** True when records can be neither committed nor logged: new calls must be refused. */
  get saturated(): boolean {
    if (Date.now() < this.brokenUntil) return true;
    return !this.spool.hasRoom() && (this.options.durability === "local" || this.spooling);
  }

  /** True while records wait in the local log for the store. */
  get spooling(): boolean {
    return !this.spool.isEmpty();
  }

  /** Resolves once the record is durable (see AuditDurability). */
  append(record: PendingAuditRecord): Promise<void> {
    const appended = new Promise<void>((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.flushing ??= this.flush();
    });
    this.latest = appended; // its caller handles a rejection; caughtUp() only waits for it
    return appended;
  }

  /**
   * Resolves once every record appended so far can be read from the store, or after about
   * `timeoutMs` (reads then show what the store has; the rest follows when it is ingested).
   */
  async caughtUp(timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([this.latest.catch(() => undefined), timeout]);
    clearTimeout(timer);
    await this.ingester.caughtUp(Math.max(0, until - Date.now()));
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.maxBatch);
        await this.persist(batch);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async persist(batch: Waiting[]): Promise<void> {
    const records = batch.map((w) => w.record);
    if (this.options.durability === "store" && this.spool.isEmpty()) {
      try {
        await this.repo.append(this.db, records);
        for (const w of batch) w.resolve();
        return;
      } catch (err) {
        this.logger.error(
          { err: String(err) },
          "audit store commit failed; records go to the local log until it is replayed",
        );
      }
    }
    try {
      const appending = this.spool.append(records);
      const lone = records.length === 1 && this.queue.length === 0 && this.waitActively();
      await (lone ? awaitActively(appending, this.options.activeWaitMs) : appending);
      for (const w of batch) w.resolve();
    } catch (err) {
      if (!(err instanceof SpoolFullError)) {
        this.brokenUntil = Date.now() + this.options.brokenMs;
        this.logger.error(
          { err: String(err) },
          "audit records could not be written to the local log",
        );
      }
      const error = auditUnavailable(err instanceof SpoolFullError ? undefined : err);
      for (const w of batch) w.reject(error);
    }
  }

  /** Makes what is queued durable, moves the log into the store (within `graceMs`), closes. */
  async stop(graceMs = 10_000): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.ingester.stop(graceMs);
    if (!this.spool.isEmpty()) {
      // Kept on disk for the next start on this log; lost if the log's volume goes (a pod's
      // emptyDir on deletion): docs/audit.md, "What a lost node costs".
      this.logger.error(
        { backlog_bytes: this.spool.backlogBytes, store_failing: this.ingester.storeFailing },
        "audit log not fully drained into the store before shutdown; the rest is ingested at the next start on the same AUDIT_SPOOL_DIR",
      );
    }
    await this.spool.close();
  }
}
