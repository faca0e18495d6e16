import type { Queryable } from "./database.js";

/** A record the store refused even after escaping, kept aside (base64 of its JSON line). */
export interface QuarantinedRecord {
  recordId: string | null;
  customerId: string | null;
  reason: string;
  errorCode: string | null;
  line: string;
}

/** Records the audit store refused, kept for an operator; never part of a chain. */
export class AuditQuarantineRepository {
  constructor(private readonly db: Queryable) {}

  async add(q: QuarantinedRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO audit_quarantine (record_id, customer_id, reason, error_code, record_base64)
       VALUES ($1, $2, $3, $4, $5)`,
      [q.recordId, q.customerId, q.reason, q.errorCode, Buffer.from(q.line).toString("base64")],
    );
  }

  async list(limit = 100): Promise<(QuarantinedRecord & { quarantinedAt: Date })[]> {
    const rows = await this.db.query<{
      record_id: string | null;
      customer_id: string | null;
      reason: string;
      error_code: string | null;
      record_base64: string;
      quarantined_at: Date;
    }>(
      `SELECT record_id, customer_id, reason, error_code, record_base64, quarantined_at
         FROM audit_quarantine ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      recordId: r.record_id,
      customerId: r.customer_id,
      reason: r.reason,
      errorCode: r.error_code,
      line: Buffer.from(r.record_base64, "base64").toString("utf8"),
      quarantinedAt: r.quarantined_at,
    }));
  }
}
