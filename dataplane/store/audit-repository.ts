import {
  canonicalJson,
  chainHash,
  GENESIS_HASH,
  sha256Hex,
  type AuditFields,
} from "../audit/audit-record.js";
import { storableRecord } from "../audit/storable-record.js";
import type { ChainedRecord } from "../audit/verify-chain.js";
import type { Queryable, SqlParam } from "./database.js";

/** A record waiting for its place in the chain (seq is assigned on commit). */
export interface PendingAuditRecord {
  fields: Omit<AuditFields, "seq">;
  content: Record<string, unknown> | null;
}

interface RecordRow {
  id: string;
  customer_id: string;
  seq: number;
  occurred_at: Date;
  kind: string | null;
  request_id: string | null;
  model: string | null;
  outcome: string | null;
  tombstoned_at: Date | null;
  fields: AuditFields | null;
  content: Record<string, unknown> | null;
  record_digest: string;
  prev_hash: string;
  hash: string;
}

export interface RecordFilter {
  customerId: string | null;
  from?: Date;
  to?: Date;
  model?: string;
  outcome?: string;
  requestId?: string;
  kind?: string;
}

/** The append-only audit log in the store. Rows are only ever appended or tombstoned. */
export class AuditRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Chains and inserts a batch, inside the caller's transaction. Each customer's chain head is
   * locked (FOR UPDATE), so replicas appending at once still form one unbroken chain. Records
   * already stored (same id, e.g. replayed from the spool twice) are skipped. Every record is made
   * storable first (storableRecord: escapes what the store would refuse, and says so).
   */
  async appendBatch(
    tx: Queryable,
    batch: readonly PendingAuditRecord[],
    options: { dedupe?: boolean } = {},
  ): Promise<void> {
    // Fresh records have fresh ids; only a spool replay can carry records already stored.
    const existing = options.dedupe
      ? new Set(
          (
            await tx.query<{ id: string }>(
              "SELECT id FROM audit_records WHERE id = ANY($1::text[])",
              [batch.map((r) => r.fields.id)],
            )
          ).map((r) => r.id),
        )
      : new Set<string>();
    const byCustomer = new Map<string, PendingAuditRecord[]>();
    for (const raw of batch) {
      if (existing.has(raw.fields.id)) continue;
      const r = storableRecord(raw);
      existing.add(r.fields.id);
      const list = byCustomer.get(r.fields.customer_id) ?? [];
      list.push(r);
      byCustomer.set(r.fields.customer_id, list);
    }
    for (const customerId of [...byCustomer.keys()].sort()) {
      await this.appendChain(tx, customerId, byCustomer.get(customerId) as PendingAuditRecord[]);
    }
  }

  /** Two statements per customer: lock and read the chain head; insert and advance it. */
  private async appendChain(
    tx: Queryable,
    customerId: string,
    records: PendingAuditRecord[],
  ): Promise<void> {
    // The upsert takes the head's row lock (replicas appending at once queue here) and reads it.
    const [head] = await tx.query<{ last_seq: number; last_hash: string }>(
      `INSERT INTO audit_chain_heads (customer_id, last_seq, last_hash) VALUES ($1, 0, $2)
       ON CONFLICT (customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id
       RETURNING last_seq, last_hash`,
      [customerId, GENESIS_HASH],
    );
    let seq = head?.last_seq ?? 0;
    let prev = head?.last_hash ?? GENESIS_HASH;
    const params: SqlParam[] = [customerId];
    const rows: string[] = [];
    for (const r of records) {
      seq += 1;
      const fields: AuditFields = { ...r.fields, seq };
      // The digested text is the stored JSON too (jsonb keeps the values, not the text).
      const canonical = canonicalJson(fields);
      const digest = sha256Hex(canonical);
      const hash = chainHash(prev, digest);
      const base = params.length;
      params.push(
        fields.id,
        seq,
        fields.occurred_at,
        canonical,
        r.content === null ? null : JSON.stringify(r.content),
        digest,
        prev,
        hash,
      );
      const p = (i: number) => `$${base + i}`;
      rows.push(
        `(${p(1)}, $1, ${p(2)}, ${p(3)}::timestamptz, ${p(4)}::jsonb, ${p(5)}::jsonb, ${p(6)}, ${p(7)}, ${p(8)})`,
      );
      prev = hash;
    }
    params.push(seq, prev);
    const n = params.length;
    await tx.query(
      `-- A data-modifying WITH always runs to completion, read or not.
       WITH inserted AS (
         INSERT INTO audit_records
           (id, customer_id, seq, occurred_at, fields, content, record_digest, prev_hash, hash)
         VALUES ${rows.join(", ")})
       UPDATE audit_chain_heads SET last_seq = $${n - 1}, last_hash = $${n}
        WHERE customer_id = $1`,
      params,
    );
  }

  async list(filter: RecordFilter, page: { limit: number; offset: number }) {
    return this.db.query<{
      id: string;
      customer_id: string;
      seq: number;
      fields: AuditFields | null;
      hash: string;
      content: Record<string, unknown> | null;
    }>(
      `SELECT id, customer_id, seq, fields, hash, content FROM audit_records
        WHERE ($1::text IS NULL OR customer_id = $1)
          AND ($2::timestamptz IS NULL OR occurred_at >= $2)
          AND ($3::timestamptz IS NULL OR occurred_at < $3)
          AND ($4::text IS NULL OR model = $4)
          AND ($5::text IS NULL OR outcome = $5)
          AND ($6::text IS NULL OR request_id = $6)
          AND ($7::text IS NULL OR kind = $7)
        ORDER BY occurred_at DESC, customer_id, seq DESC
        LIMIT $8 OFFSET $9`,
      [
        filter.customerId,
        filter.from ?? null,
        filter.to ?? null,
        filter.model ?? null,
        filter.outcome ?? null,
        filter.requestId ?? null,
        filter.kind ?? null,
        page.limit,
        page.offset,
      ],
    );
  }

  /**
   * One customer's chain from `fromSeq` on, in pages (never the whole chain in memory), with every
   * other column of the row so verification can compare them with the hashed fields.
   */
  async *chain(
    customerId: string,
    fromSeq = 1,
    toSeq = Number.MAX_SAFE_INTEGER,
    pageSize = 250,
  ): AsyncGenerator<ChainedRecord> {
    let next = fromSeq;
    while (next <= toSeq) {
      const rows = await this.db.query<RecordRow>(
        `SELECT id, customer_id, seq, occurred_at, kind, request_id, model, outcome, tombstoned_at,
                fields, content, record_digest, prev_hash, hash FROM audit_records
          WHERE customer_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
        [customerId, next, toSeq, pageSize],
      );
      for (const r of rows) {
        yield {
          seq: r.seq,
          record_digest: r.record_digest,
          prev_hash: r.prev_hash,
          hash: r.hash,
          fields: r.fields,
          row: {
            id: r.id,
            customer_id: r.customer_id,
            occurred_at: r.occurred_at,
            kind: r.kind,
            request_id: r.request_id,
            model: r.model,
            outcome: r.outcome,
            tombstoned: r.tombstoned_at !== null,
            content: r.content,
          },
        };
      }
      if (rows.length < pageSize) return;
      next = (rows.at(-1)?.seq ?? next) + 1;
    }
  }

  /** The seq range of a customer's records in a time range, if any. */
  async seqRange(
    customerId: string,
    from: Date | null,
    to: Date | null,
  ): Promise<{ first: number; last: number } | undefined> {
    const [row] = await this.db.query<{ first: number | null; last: number | null }>(
      `SELECT min(seq)::bigint AS first, max(seq)::bigint AS last FROM audit_records
        WHERE customer_id = $1 AND ($2::timestamptz IS NULL OR occurred_at >= $2)
          AND ($3::timestamptz IS NULL OR occurred_at < $3)`,
      [customerId, from, to],
    );
    return row && row.first !== null && row.last !== null
      ? { first: row.first, last: row.last }
      : undefined;
  }

  /** The stored hash of one record (the anchor for verifying from the next one). */
  async hashAt(customerId: string, seq: number): Promise<string | undefined> {
    const [row] = await this.db.query<{ hash: string }>(
      "SELECT hash FROM audit_records WHERE customer_id = $1 AND seq = $2",
      [customerId, seq],
    );
    return row?.hash;
  }

  async heads(): Promise<{ customer_id: string; last_seq: number; last_hash: string }[]> {
    return this.db.query("SELECT customer_id, last_seq, last_hash FROM audit_chain_heads");
  }

  async customers(): Promise<string[]> {
    return (
      await this.db.query<{ customer_id: string }>("SELECT customer_id FROM audit_chain_heads")
    ).map((r) => r.customer_id);
  }
}
