import type { Checkpoint } from "../audit/checkpoint-signer.js";
import type { ContentMode } from "../audit/call-record.js";
import type { Queryable } from "./database.js";

export interface RetentionSettings {
  customerId: string;
  metadataDays: number;
  contentDays: number;
  contentMode: ContentMode;
  updatedAt: Date | null;
}

/** Six years of metadata (HIPAA 164.316(b)(2)); content is not kept unless a customer opts in. */
export const DEFAULT_RETENTION = {
  metadataDays: 6 * 365,
  contentDays: 30,
  contentMode: "none" as ContentMode,
};

export interface LegalHold {
  id: string;
  customerId: string;
  from: Date;
  to: Date;
  reason: string;
  scope: Record<string, unknown>;
  active: boolean;
  createdAt: Date;
  createdBy: string | null;
  releasedAt: Date | null;
}

interface HoldRow {
  id: string;
  customer_id: string;
  from_time: Date;
  to_time: Date;
  reason: string;
  scope: Record<string, unknown>;
  active: boolean;
  created_at: Date;
  created_by: string | null;
  released_at: Date | null;
}

const toHold = (r: HoldRow): LegalHold => ({
  id: r.id,
  customerId: r.customer_id,
  from: r.from_time,
  to: r.to_time,
  reason: r.reason,
  scope: r.scope,
  active: r.active,
  createdAt: r.created_at,
  createdBy: r.created_by,
  releasedAt: r.released_at,
});

/** Retention settings, legal holds, checkpoints and sweeps. */
export class RetentionRepository {
  constructor(private readonly db: Queryable) {}

  async settings(customerId: string): Promise<RetentionSettings> {
    const [row] = await this.db.query<{
      metadata_days: number;
      content_days: number;
      content_mode: ContentMode;
      updated_at: Date;
    }>(
      "SELECT metadata_days, content_days, content_mode, updated_at FROM audit_retention WHERE customer_id = $1",
      [customerId],
    );
    return row
      ? {
          customerId,
          metadataDays: row.metadata_days,
          contentDays: row.content_days,
          contentMode: row.content_mode,
          updatedAt: row.updated_at,
        }
      : { customerId, ...DEFAULT_RETENTION, updatedAt: null };
  }

  async saveSettings(s: Omit<RetentionSettings, "updatedAt">): Promise<RetentionSettings> {
    await this.db.query(
      `INSERT INTO audit_retention (customer_id, metadata_days, content_days, content_mode, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (customer_id) DO UPDATE
         SET metadata_days = $2, content_days = $3, content_mode = $4, updated_at = now()`,
      [s.customerId, s.metadataDays, s.contentDays, s.contentMode],
    );
    return this.settings(s.customerId);
  }

  async createHold(h: Omit<LegalHold, "active" | "createdAt" | "releasedAt">): Promise<LegalHold> {
    const [row] = await this.db.query<HoldRow>(
      `INSERT INTO legal_holds (id, customer_id, from_time, to_time, reason, scope, created_by)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING *`,
      [h.id, h.customerId, h.from, h.to, h.reason, JSON.stringify(h.scope), h.createdBy],
    );
    return toHold(row as HoldRow);
  }

  async holds(customerId: string | null, activeOnly = false): Promise<LegalHold[]> {
    const rows = await this.db.query<HoldRow>(
      `SELECT * FROM legal_holds WHERE ($1::text IS NULL OR customer_id = $1) AND (NOT $2::boolean OR active)
        ORDER BY created_at, id`,
      [customerId, activeOnly],
    );
    return rows.map(toHold);
  }

  async releaseHold(
    id: string,
    customerId: string | null,
    by: string,
  ): Promise<LegalHold | undefined> {
    const [row] = await this.db.query<HoldRow>(
      `UPDATE legal_holds SET active = false, released_at = COALESCE(released_at, now()), released_by = COALESCE(released_by, $3)
        WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2) RETURNING *`,
      [id, customerId, by],
    );
    return row ? toHold(row) : undefined;
  }

  async saveCheckpoint(c: Checkpoint): Promise<void> {
    await this.db.query(
      `INSERT INTO audit_checkpoints (customer_id, seq, hash, created_at, signature, key_id)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [c.customer_id, c.seq, c.hash, c.created_at, c.signature, c.key_id],
    );
  }

  async checkpoints(
    customerId: string,
    fromSeq = 0,
    toSeq = Number.MAX_SAFE_INTEGER,
  ): Promise<Checkpoint[]> {
    const rows = await this.db.query<{
      customer_id: string;
      seq: number;
      hash: string;
      created_at: Date;
      signature: string;
      key_id: string;
    }>(
      `SELECT customer_id, seq, hash, created_at, signature, key_id FROM audit_checkpoints
        WHERE customer_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq`,
      [customerId, fromSeq, toSeq],
    );
    return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }));
  }

  async lastCheckpointSeq(customerId: string): Promise<number> {
    const [row] = await this.db.query<{ seq: number | null }>(
      "SELECT max(seq)::bigint AS seq FROM audit_checkpoints WHERE customer_id = $1",
      [customerId],
    );
    return row?.seq ?? 0;
  }
}
