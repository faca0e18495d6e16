import type { Clock } from "../core/clock.js";
import type { Logger } from "../observability/logger.js";
import type { AuditRepository } from "../store/audit-repository.js";
import type { Queryable } from "../store/database.js";
import type { RetentionRepository } from "../store/retention-repository.js";

const DAY_MS = 86_400_000;

/** Records covered by an active legal hold of their customer (and the hold's model scope). */
const NOT_HELD = `NOT EXISTS (
  SELECT 1 FROM legal_holds h
   WHERE h.customer_id = r.customer_id AND h.active
     AND r.occurred_at >= h.from_time AND r.occurred_at < h.to_time
     AND (h.scope->>'model' IS NULL OR h.scope->>'model' = r.model))`;

export interface SweepResult {
  contentRemoved: number;
  recordsRemoved: number;
}

/**
 * Deletes what retention says has expired, in bounded batches, never anything under an active
 * legal hold. A deleted record becomes a tombstone: its fields go, its seq, digest and hashes
 * stay, so the chain still verifies.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  lastSweepAt: Date | null = null;
  nextSweepAt: Date | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly records: AuditRepository,
    private readonly retention: RetentionRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly batchSize = 1000,
  ) {}

  async sweep(): Promise<SweepResult> {
    const startedAt = new Date(this.clock.now());
    const total: SweepResult = { contentRemoved: 0, recordsRemoved: 0 };
    for (const customerId of await this.records.customers()) {
      const s = await this.retention.settings(customerId);
      const contentCutoff = new Date(this.clock.now() - s.contentDays * DAY_MS);
      const metadataCutoff = new Date(this.clock.now() - s.metadataDays * DAY_MS);
      total.contentRemoved += await this.inBatches(
        `UPDATE audit_records SET content = NULL WHERE id IN (
           SELECT id FROM audit_records r WHERE r.customer_id = $1 AND r.content IS NOT NULL
              AND r.occurred_at < $2 AND ${NOT_HELD} LIMIT $3)`,
        [customerId, contentCutoff],
      );
      total.recordsRemoved += await this.inBatches(
        `UPDATE audit_records SET fields = NULL, content = NULL, kind = NULL, request_id = NULL,
                model = NULL, outcome = NULL, tombstoned_at = now()
          WHERE id IN (
           SELECT id FROM audit_records r WHERE r.customer_id = $1 AND r.fields IS NOT NULL
              AND r.occurred_at < $2 AND ${NOT_HELD} LIMIT $3)`,
        [customerId, metadataCutoff],
      );
    }
    await this.db.query(
      "INSERT INTO audit_sweeps (started_at, finished_at, content_removed, records_removed) VALUES ($1, now(), $2, $3)",
      [startedAt, total.contentRemoved, total.recordsRemoved],
    );
    this.lastSweepAt = startedAt;
    return total;
  }

  private async inBatches(sql: string, params: [string, Date]): Promise<number> {
    let removed = 0;
    for (;;) {
      const rows = await this.db.query<{ n: number }>(
        `WITH done AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM done`,
        [...params, this.batchSize],
      );
      const n = rows[0]?.n ?? 0;
      removed += n;
      if (n < this.batchSize) return removed;
    }
  }

  start(intervalMs: number): void {
    this.nextSweepAt = new Date(this.clock.now() + intervalMs);
    this.timer = setInterval(() => {
      this.nextSweepAt = new Date(this.clock.now() + intervalMs);
      this.sweep().catch((err: unknown) =>
        this.logger.warn({ err: String(err) }, "retention sweep failed"),
      );
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Counts by age, held, and due for deletion, for the retention report. */
  async report(customerId: string) {
    const s = await this.retention.settings(customerId);
    const now = this.clock.now();
    const [row] = await this.db.query<Record<string, number>>(
      `SELECT
         count(*) FILTER (WHERE fields IS NOT NULL)::int AS records,
         count(*) FILTER (WHERE fields IS NULL)::int AS tombstones,
         count(*) FILTER (WHERE fields IS NOT NULL AND occurred_at >= $2)::int AS age_under_30d,
         count(*) FILTER (WHERE fields IS NOT NULL AND occurred_at < $2 AND occurred_at >= $3)::int AS age_30d_to_1y,
         count(*) FILTER (WHERE fields IS NOT NULL AND occurred_at < $3 AND occurred_at >= $4)::int AS age_1y_to_3y,
         count(*) FILTER (WHERE fields IS NOT NULL AND occurred_at < $4)::int AS age_over_3y,
         count(*) FILTER (WHERE fields IS NOT NULL AND NOT ${NOT_HELD})::int AS held,
         count(*) FILTER (WHERE fields IS NOT NULL AND occurred_at < $5 AND ${NOT_HELD})::int AS due_records,
         count(*) FILTER (WHERE content IS NOT NULL AND occurred_at < $6 AND ${NOT_HELD})::int AS due_content,
         count(*) FILTER (WHERE content IS NOT NULL)::int AS with_content
       FROM audit_records r WHERE r.customer_id = $1`,
      [
        customerId,
        new Date(now - 30 * DAY_MS),
        new Date(now - 365 * DAY_MS),
        new Date(now - 3 * 365 * DAY_MS),
        new Date(now - s.metadataDays * DAY_MS),
        new Date(now - s.contentDays * DAY_MS),
      ],
    );
    const [sweep] = await this.db.query<{ finished_at: Date | null }>(
      "SELECT finished_at FROM audit_sweeps ORDER BY id DESC LIMIT 1",
    );
    return {
      settings: s,
      counts: row ?? {},
      lastSweepAt: sweep?.finished_at ?? this.lastSweepAt,
      nextSweepAt: this.nextSweepAt,
    };
  }
}
