import type {
  BatchEndpoint,
  BatchLine,
  BatchLineError,
  BatchRecord,
  BatchStatus,
} from "../batches/batch-types.js";
import { COLUMNS, STATUS_AT, toBatch, type BatchRow } from "./batch-rows.js";
import {
  claimLines,
  insertLines,
  linesAfter,
  recordLines,
  strandedLines,
  unclaimLine,
  type ClaimedLine,
  type LineResult,
} from "./batch-line-queries.js";
import type { Database, Queryable } from "./database.js";

export type { ClaimedLine, StoredLine } from "./batch-line-queries.js";

export interface NewBatch {
  id: string;
  customerId: string;
  keyId: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  completionWindow: string;
  metadata: Record<string, string> | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Batch jobs and their lines. Workers hold a batch through a lease (owner + deadline) and claim
 * lines one state change at a time (pending -> running -> done), each committed before the next
 * step, so a line is never handed to two workers and never run twice.
 */
export class BatchRepository {
  constructor(private readonly db: Database) {}

  async create(b: NewBatch): Promise<BatchRecord> {
    const rows = await this.db.query<BatchRow>(
      `INSERT INTO batches (id, customer_id, key_id, endpoint, input_file_id, completion_window,
                            metadata, status, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'validating', $8, $9)
       RETURNING ${COLUMNS}`,
      [
        b.id,
        b.customerId,
        b.keyId,
        b.endpoint,
        b.inputFileId,
        b.completionWindow,
        b.metadata === null ? null : JSON.stringify(b.metadata),
        b.createdAt,
        b.expiresAt,
      ],
    );
    return toBatch(rows[0] as BatchRow);
  }

  async get(id: string, customerId: string): Promise<BatchRecord | undefined> {
    const rows = await this.db.query<BatchRow>(
      `SELECT ${COLUMNS} FROM batches WHERE id = $1 AND customer_id = $2`,
      [id, customerId],
    );
    return rows[0] ? toBatch(rows[0]) : undefined;
  }

  /** Newest first, after a cursor; fetched with limit + 1. */
  async list(customerId: string, after: string | undefined, limit: number): Promise<BatchRecord[]> {
    const rows = await this.db.query<BatchRow>(
      `SELECT ${COLUMNS} FROM batches
        WHERE customer_id = $1
          AND ($2::text IS NULL OR (created_at, id) <
               (SELECT created_at, id FROM batches WHERE id = $2 AND customer_id = $1))
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [customerId, after ?? null, limit + 1],
    );
    return rows.map(toBatch);
  }

  /** validating / in_progress -> cancelling; returns the batch as it is afterwards. */
  async requestCancel(id: string, customerId: string, at: Date): Promise<BatchRecord | undefined> {
    await this.db.query(
      `UPDATE batches SET status = 'cancelling', cancelling_at = $3
        WHERE id = $1 AND customer_id = $2 AND status IN ('validating', 'in_progress')`,
      [id, customerId, at],
    );
    return this.get(id, customerId);
  }

  /** Takes the oldest open batch whose lease is free or lapsed (a dead worker's is taken over). */
  async claim(owner: string, now: Date, leaseUntil: Date): Promise<BatchRecord | undefined> {
    const rows = await this.db.query<BatchRow>(
      `UPDATE batches SET lease_owner = $1, lease_until = $3
        WHERE id = (
          SELECT id FROM batches
           WHERE status IN ('validating', 'in_progress', 'finalizing', 'cancelling')
             AND (lease_until IS NULL OR lease_until < $2 OR lease_owner = $1)
           ORDER BY created_at, id
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [owner, now, leaseUntil],
    );
    return rows[0] ? toBatch(rows[0]) : undefined;
  }

  /** Extends the lease; false when another worker has taken the batch over. */
  async renew(id: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "UPDATE batches SET lease_until = $3 WHERE id = $1 AND lease_owner = $2 RETURNING id",
      [id, owner, leaseUntil],
    );
    return rows.length > 0;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db.query(
      "UPDATE batches SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
      [id, owner],
    );
  }

  /** The status as stored now (a cancel may have arrived through another replica). */
  async status(id: string): Promise<BatchStatus | undefined> {
    return (await this.progress(id))?.status;
  }

  /** Status and whether lines are still waiting to run. */
  async progress(id: string): Promise<{ status: BatchStatus; pending: number } | undefined> {
    const rows = await this.db.query<{ status: BatchStatus; pending: number }>(
      `SELECT status, (SELECT count(*)::int FROM batch_lines
                        WHERE batch_id = $1 AND state = 'pending') AS pending
         FROM batches WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Moves a batch the worker holds from one of `from` to `to`, stamping the status time. */
  async transition(
    id: string,
    owner: string,
    from: readonly BatchStatus[],
    to: BatchStatus,
    at: Date,
    tx: Queryable = this.db,
  ): Promise<boolean> {
    const column = STATUS_AT[to];
    const rows = await tx.query<{ id: string }>(
      `UPDATE batches SET status = $4${column ? `, ${column} = $5` : ""}
        WHERE id = $1 AND lease_owner = $2 AND status = ANY($3::text[]) RETURNING id`,
      column ? [id, owner, [...from], to, at] : [id, owner, [...from], to],
    );
    return rows.length > 0;
  }

  /** Validation passed: stores every line and moves the batch to in_progress, all or nothing. */
  async startLines(id: string, owner: string, lines: readonly BatchLine[], at: Date) {
    return this.db.transaction(async (tx) => {
      const moved = await this.transition(id, owner, ["validating"], "in_progress", at, tx);
      if (!moved) return false;
      await insertLines(tx, id, lines);
      await tx.query("UPDATE batches SET total = $2 WHERE id = $1", [id, lines.length]);
      return true;
    });
  }

  /** Validation failed: the batch ends as failed with its errors; nothing runs. */
  async failValidation(id: string, owner: string, errors: BatchLineError[], at: Date) {
    return this.db.transaction(async (tx) => {
      const moved = await this.transition(id, owner, ["validating"], "failed", at, tx);
      if (moved)
        await tx.query("UPDATE batches SET errors = $2 WHERE id = $1", [
          id,
          JSON.stringify(errors),
        ]);
      return moved;
    });
  }

  /** Lines left `running` by another (dead) worker: in flight when it stopped. */
  strandedLines(id: string, owner: string): Promise<ClaimedLine[]> {
    return strandedLines(this.db, id, owner);
  }

  /** Claims up to `n` pending lines while this worker holds the lease (batch-line-queries.ts). */
  claimLines(id: string, owner: string, now: Date, n: number): Promise<ClaimedLine[]> {
    return claimLines(this.db, id, owner, now, n);
  }

  /** Gives a claimed line back (the call was never sent: paused by limits, or shutting down). */
  unclaimLine(id: string, owner: string, lineNo: number): Promise<void> {
    return unclaimLine(this.db, id, owner, lineNo);
  }

  /** Stores a line's result and counts it, once: only a line still `running` for `owner`. */
  async recordLine(
    id: string,
    owner: string | null,
    lineNo: number,
    line: string,
    isError: boolean,
  ): Promise<boolean> {
    return (await this.recordLines(id, owner, [{ lineNo, line, isError }])) === 1;
  }

  /** Several results in one transaction (a worker's round); returns how many were recorded. */
  async recordLines(id: string, owner: string | null, results: readonly LineResult[]) {
    if (results.length === 0) return 0;
    return this.db.transaction((tx) => recordLines(tx, id, owner, results));
  }

  /** Lines in order, a page at a time, for writing the output and error files. */
  linesAfter(id: string, afterLineNo: number, limit: number, tx: Queryable = this.db) {
    return linesAfter(tx, id, afterLineNo, limit);
  }

  /** Runs fn in one transaction (finalisation: files and status together). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Sets the output and error files of a batch (inside the finalising transaction). */
  async setFiles(
    tx: Queryable,
    id: string,
    files: { outputFileId: string | null; errorFileId: string | null },
  ): Promise<void> {
    await tx.query("UPDATE batches SET output_file_id = $2, error_file_id = $3 WHERE id = $1", [
      id,
      files.outputFileId,
      files.errorFileId,
    ]);
  }
}
