import type { AuditFields } from "../audit/audit-record.js";
import { storableRecord } from "../audit/storable-record.js";
import type { ChainedRecord } from "../audit/verify-chain.js";
import { AuditChainAppender } from "./audit-chain-append.js";
import type { Database, Queryable } from "./database.js";

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
  private readonly chains = new AuditChainAppender();

  constructor(private readonly db: Queryable) {}

  /**
   * Chains and inserts a batch, committed when this returns. Each customer's chain head is
   * checked (or locked) in the store, so replicas appending at once still form one unbroken chain.
   * A batch of one customer whose head this process wrote last is one statement (no transaction);
   * otherwise one transaction for the batch. Records already stored (same id, e.g. replayed from
   * the local log twice) are skipped with `dedupe`. Every record is made storable first
   * (storableRecord: escapes what the store would refuse, and says so).
   */
  async append(
    db: Database,
    batch: readonly PendingAuditRecord[],
    options: { dedupe?: boolean } = {},
  ): Promise<void> {
    const byCustomer = await this.byCustomer(db, batch, options);
    const [only, ...more] = byCustomer;
    if (only === undefined) return;
    if (more.length === 0 && (await this.chains.appendAfterKnownHead(db, only[0], only[1]))) return;
    await db.transaction((tx) => this.chains.appendLocked(tx, byCustomer));
  }

  /** As append(), inside the caller's transaction `tx`. */
  async appendBatch(
    tx: Queryable,
    batch: readonly PendingAuditRecord[],
    options: { dedupe?: boolean } = {},
  ): Promise<void> {
    await this.chains.appendLocked(tx, await this.byCustomer(tx, batch, options));
  }

  /** The storable records of a batch by customer, customers in sorted order. */
  private async byCustomer(
    q: Queryable,
    batch: readonly PendingAuditRecord[],
    options: { dedupe?: boolean },
  ): Promise<[string, PendingAuditRecord[]][]> {
    // Fresh records have fresh ids; only a replay of the local log can carry records stored.
    const existing = options.dedupe
      ? new Set(
          (
            await q.query<{ id: string }>(
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
      const list = byCustomer.get(r.fields.customer_id);
      if (list) list.push(r);
      else byCustomer.set(r.fields.customer_id, [r]);
    }
    return [...byCustomer].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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
