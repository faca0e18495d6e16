import type { Queryable } from "./database.js";

export type ExportStatus = "queued" | "running" | "completed" | "failed";

export interface ExportJob {
  id: string;
  customerId: string;
  kind: "hipaa" | "soc2";
  from: Date;
  to: Date;
  status: ExportStatus;
  error: string | null;
  recordCount: number | null;
  sizeBytes: number | null;
  sha256: string | null;
  chainOk: boolean | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

interface Row {
  id: string;
  customer_id: string;
  kind: "hipaa" | "soc2";
  from_time: Date;
  to_time: Date;
  status: ExportStatus;
  error: string | null;
  record_count: number | null;
  size_bytes: number | null;
  sha256: string | null;
  chain_ok: boolean | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const toJob = (r: Row): ExportJob => ({
  id: r.id,
  customerId: r.customer_id,
  kind: r.kind,
  from: r.from_time,
  to: r.to_time,
  status: r.status,
  error: r.error,
  recordCount: r.record_count,
  sizeBytes: r.size_bytes,
  sha256: r.sha256,
  chainOk: r.chain_ok,
  createdAt: r.created_at,
  startedAt: r.started_at,
  completedAt: r.completed_at,
});

const COLUMNS = `id, customer_id, kind, from_time, to_time, status, error, record_count, size_bytes,
  sha256, chain_ok, created_at, started_at, completed_at`;

/** Compliance export jobs and their finished bundles (stored in chunks, so any replica serves them). */
export class ExportRepository {
  constructor(private readonly db: Queryable) {}

  async create(j: {
    id: string;
    customerId: string;
    kind: "hipaa" | "soc2";
    from: Date;
    to: Date;
    createdBy: string;
  }): Promise<ExportJob> {
    const [row] = await this.db.query<Row>(
      `INSERT INTO compliance_exports (id, customer_id, kind, from_time, to_time, status, created_by)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6) RETURNING ${COLUMNS}`,
      [j.id, j.customerId, j.kind, j.from, j.to, j.createdBy],
    );
    return toJob(row as Row);
  }

  async get(id: string, customerId: string | null): Promise<ExportJob | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM compliance_exports WHERE id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR customer_id = $2)`,
      [id, customerId],
    );
    return row ? toJob(row) : undefined;
  }

  async list(customerId: string, page: { limit: number; offset: number }): Promise<ExportJob[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM compliance_exports WHERE customer_id = $1 AND deleted_at IS NULL
        ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
      [customerId, page.limit, page.offset],
    );
    return rows.map(toJob);
  }

  /** Claims the oldest queued job (SKIP LOCKED: replicas never take the same one). */
  async claim(): Promise<ExportJob | undefined> {
    const [row] = await this.db.query<Row>(
      `UPDATE compliance_exports SET status = 'running', started_at = now()
        WHERE id = (SELECT id FROM compliance_exports WHERE status = 'queued' AND deleted_at IS NULL
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
    );
    return row ? toJob(row) : undefined;
  }

  async saveChunk(exportId: string, idx: number, data: Buffer): Promise<void> {
    await this.db.query(
      "INSERT INTO compliance_export_chunks (export_id, idx, data) VALUES ($1, $2, $3)",
      [exportId, idx, data],
    );
  }

  async complete(
    id: string,
    r: { recordCount: number; sizeBytes: number; sha256: string; chainOk: boolean },
  ): Promise<void> {
    await this.db.query(
      `UPDATE compliance_exports SET status = 'completed', completed_at = now(), record_count = $2,
              size_bytes = $3, sha256 = $4, chain_ok = $5 WHERE id = $1`,
      [id, r.recordCount, r.sizeBytes, r.sha256, r.chainOk],
    );
  }

  async fail(id: string, error: string): Promise<void> {
    await this.db.query("DELETE FROM compliance_export_chunks WHERE export_id = $1", [id]);
    await this.db.query(
      "UPDATE compliance_exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1",
      [id, error],
    );
  }

  /** A job left running by a replica that died is queued again. */
  async requeueStale(olderThan: Date): Promise<void> {
    await this.db.query(
      `UPDATE compliance_exports SET status = 'queued', started_at = NULL
        WHERE status = 'running' AND started_at < $1`,
      [olderThan],
    );
  }

  async *chunks(id: string): AsyncGenerator<Buffer> {
    for (let idx = 0; ; idx++) {
      const [row] = await this.db.query<{ data: Buffer | Uint8Array }>(
        "SELECT data FROM compliance_export_chunks WHERE export_id = $1 AND idx = $2",
        [id, idx],
      );
      if (!row) return;
      yield Buffer.from(row.data);
    }
  }

  async delete(id: string, customerId: string | null): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE compliance_exports SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL
         AND ($2::text IS NULL OR customer_id = $2) RETURNING id`,
      [id, customerId],
    );
    if (rows.length > 0)
      await this.db.query("DELETE FROM compliance_export_chunks WHERE export_id = $1", [id]);
    return rows.length > 0;
  }
}
