import { GENESIS_HASH } from "../audit/audit-record.js";
import {
  type ChainAppend,
  chainedAsCopy,
  type ChainHead,
  chainRows,
  COPY_COLUMNS,
} from "./audit-chain-rows.js";
import { CopyRowPieces } from "./copy-row-pieces.js";
import { sqlIntegerLiteral, sqlTextLiteral } from "./copy-guard.js";
import type { Queryable } from "./database.js";
import type { PendingAuditRecord } from "./audit-repository.js";

export type { ChainHead } from "./audit-chain-rows.js";

/** At most this many customers' heads are remembered (the rest are read from the store). */
const HEADS_MAX = 10_000;

/**
 * Inserts a customer's records and moves its chain head, in one statement, only if the head is
 * still `expected` ($2, $3). The UPDATE takes the head's row lock first; a replica that moved the
 * head meanwhile makes it match no row, and then nothing is inserted (the INSERT reads the
 * UPDATE's RETURNING). The records come as one JSON array ($6): one parameter for the batch,
 * whatever its size, instead of twelve parameters per record. It is read as `json`, not `jsonb`:
 * each record's fields and content go in as the text that was digested (migration 20).
 */
const INSERT_IF_HEAD = `
  WITH head AS (
    UPDATE audit_chain_heads SET last_seq = $4, last_hash = $5
     WHERE customer_id = $1 AND last_seq = $2 AND last_hash = $3
    RETURNING customer_id
  ), inserted AS (
    INSERT INTO audit_records
      (id, customer_id, seq, occurred_at, kind, request_id, model, outcome, fields, content,
       record_digest, prev_hash, hash)
    SELECT r.id, head.customer_id, r.seq, r.occurred_at, r.kind, r.request_id, r.model,
           r.outcome, r.fields, r.content, r.record_digest, r.prev_hash, r.hash
      FROM head, json_to_recordset($6::json) AS r(id text, seq bigint, occurred_at timestamptz,
           kind text, request_id text, model text, outcome text, fields json, content json,
           record_digest text, prev_hash text, hash text)
    RETURNING 1
  )
  SELECT count(*)::int AS moved FROM head`;

/**
 * The COPY's guard (copy-guard.ts): moves the head from `from` to `to`, or raises GUARD_REFUSED if
 * it is no longer at `from` (audit_move_head, migration 19).
 */
function moveHeadGuard(customerId: string, from: ChainHead, to: ChainHead): string {
  return (
    `SELECT audit_move_head(${sqlTextLiteral(customerId)}, ${sqlIntegerLiteral(from.seq)}, ` +
    `${sqlTextLiteral(from.hash)}, ${sqlIntegerLiteral(to.seq)}, ${sqlTextLiteral(to.hash)})`
  );
}

/**
 * Creates the missing head rows of a batch's customers ($1), locks them all (FOR UPDATE, by the
 * row lock ON CONFLICT DO UPDATE takes) and reads them, in one order: the customer ids' bytes
 * (COLLATE "C"), so two replicas locking overlapping sets wait for each other instead of
 * deadlocking.
 */
const LOCK_HEADS = `
  INSERT INTO audit_chain_heads (customer_id, last_seq, last_hash)
  SELECT c, 0, $2 FROM unnest($1::text[]) AS c ORDER BY c COLLATE "C"
  ON CONFLICT (customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id
  RETURNING customer_id, last_seq, last_hash`;

/**
 * Moves the heads of customers whose head rows this transaction has locked (LOCK_HEADS), in one
 * statement without parameters: it runs in the same query as the COPY of their rows.
 */
function moveLockedHeads(moves: readonly { customerId: string; head: ChainHead }[]): string {
  const values = moves
    .map(
      ({ customerId, head }) =>
        `(${sqlTextLiteral(customerId)}, ${sqlIntegerLiteral(head.seq)}::bigint, ` +
        `${sqlTextLiteral(head.hash)})`,
    )
    .join(", ");
  return (
    "UPDATE audit_chain_heads AS h SET last_seq = v.seq, last_hash = v.hash " +
    `FROM (VALUES ${values}) AS v(customer_id, seq, hash) WHERE h.customer_id = v.customer_id`
  );
}

const jsonOrNull = (value: string | null): string =>
  value === null ? "null" : JSON.stringify(value);

/**
 * The records chained after `head`: the JSON array INSERT_IF_HEAD reads, as UTF-8 bytes, and the
 * new head. The text is gathered in pieces below V8's large-object size and written into one
 * Buffer, so no string of the whole batch is ever made: node-postgres would flatten one (hundreds
 * of KB under load) into the large-object space, where it stays until a full mark-compact, and
 * the gateway's resident set swung with it (docs/benchmarks.md, "Issue 13, twenty-first pass").
 * A Buffer parameter goes to Postgres in binary format, which for `json` is the text itself.
 */
export function chainAfter(
  head: ChainHead,
  records: readonly PendingAuditRecord[],
): { json: Buffer; head: ChainHead } {
  const pieces = new CopyRowPieces();
  let separator = "[";
  const next = chainRows(head, records, (r) => {
    pieces.add(
      `${separator}{"id":${JSON.stringify(r.id)},"seq":${r.seq},` +
        `"occurred_at":${JSON.stringify(r.occurredAt)},"kind":${JSON.stringify(r.kind)},` +
        `"request_id":${jsonOrNull(r.requestId)},"model":${jsonOrNull(r.model)},` +
        `"outcome":${jsonOrNull(r.outcome)},"fields":${r.fields},` +
        `"content":${r.content ?? "null"},` +
        `"record_digest":"${r.digest}","prev_hash":"${r.prevHash}","hash":"${r.hash}"}`,
    );
    separator = ",";
  });
  pieces.add(separator === "[" ? "[]" : "]");
  return { json: utf8OfPieces(pieces.pieces()), head: next };
}

/** The pieces' UTF-8 bytes, one after the other, in one Buffer (no joined string). */
function utf8OfPieces(pieces: readonly string[]): Buffer {
  const lengths = pieces.map((piece) => Buffer.byteLength(piece, "utf8"));
  const out = Buffer.allocUnsafeSlow(lengths.reduce((sum, n) => sum + n, 0));
  let offset = 0;
  pieces.forEach((piece, i) => {
    offset += out.write(piece, offset, lengths[i], "utf8");
  });
  return out;
}

/** True when the store loads rows by COPY (both stores do; a Queryable need not). */
const hasCopy = (q: Queryable): q is Queryable & Required<Pick<Queryable, "copyRows">> =>
  q.copyRows !== undefined;

/**
 * Appends records to customers' chains. The head each append left is remembered, so the next
 * append of one customer's records is one query that checks the head is unchanged and appends
 * (`appendAfterKnownHead`, no transaction needed); only a head not remembered yet, or moved by
 * someone else (another replica, a rolled-back transaction), or a batch of several customers,
 * costs a transaction that locks and reads every head of the batch (`appendLocked`). Safe to
 * share: the store's head is the truth, the memory only a guess that the query checks. Rows go in
 * by binary COPY, in the same query as the statement that moves the heads (where the Queryable
 * has no COPY, by INSERT_IF_HEAD).
 */
export class AuditChainAppender {
  private readonly heads = new Map<string, ChainHead>();

  /**
   * One query, when this customer's head is remembered and still the store's: true. False
   * (nothing written, the head forgotten) otherwise; then use appendLocked. Outside a
   * transaction only: inside one, a moved head aborts it on a store with COPY.
   */
  async appendAfterKnownHead(
    q: Queryable,
    customerId: string,
    records: readonly PendingAuditRecord[],
  ): Promise<boolean> {
    const known = this.heads.get(customerId);
    if (known === undefined) return false;
    const next = hasCopy(q)
      ? await this.copyIfHead(q, customerId, known, records)
      : await this.insertJsonIfHead(q, customerId, known, records);
    if (next === undefined) {
      this.heads.delete(customerId);
      return false;
    }
    this.remember(customerId, next);
    return true;
  }

  /**
   * Locks every customer's head (creating a new chain's) in one statement and appends after them,
   * every customer's rows in one COPY with the heads' move in the same query: two round trips
   * in `tx` (a transaction) whatever the number of customers.
   */
  async appendLocked(
    tx: Queryable,
    batch: readonly (readonly [string, readonly PendingAuditRecord[]])[],
  ): Promise<void> {
    if (batch.length === 0) return;
    const locked = new Map(
      (
        await tx.query<{ customer_id: string; last_seq: number; last_hash: string }>(LOCK_HEADS, [
          batch.map(([customerId]) => customerId),
          GENESIS_HASH,
        ])
      ).map((row) => [row.customer_id, { seq: row.last_seq, hash: row.last_hash }]),
    );
    const appends: ChainAppend[] = batch.map(([customerId, records]) => {
      const head = locked.get(customerId);
      if (head === undefined) throw new Error(`audit chain head of ${customerId} not locked`);
      return { customerId, head, records };
    });
    if (!hasCopy(tx)) {
      for (const { customerId, head, records } of appends) {
        const next = await this.insertJsonIfHead(tx, customerId, head, records);
        if (next === undefined) throw new Error(`audit chain head of ${customerId} moved`);
        this.remember(customerId, next);
      }
      return;
    }
    const { rows, heads } = chainedAsCopy(appends);
    const moves = appends.map(({ customerId }, i) => ({ customerId, head: heads[i] as ChainHead }));
    if (!(await tx.copyRows("audit_records", COPY_COLUMNS, rows, moveLockedHeads(moves)))) {
      throw new Error("audit chain heads moved while locked");
    }
    for (const { customerId, head } of moves) this.remember(customerId, head);
  }

  private remember(customerId: string, head: ChainHead): void {
    if (!this.heads.has(customerId) && this.heads.size >= HEADS_MAX) this.heads.clear();
    this.heads.set(customerId, head);
  }

  /** INSERT_IF_HEAD: one statement, no transaction. The new head, or undefined if it moved. */
  private async insertJsonIfHead(
    q: Queryable,
    customerId: string,
    head: ChainHead,
    records: readonly PendingAuditRecord[],
  ): Promise<ChainHead | undefined> {
    const next = chainAfter(head, records);
    const [row] = await q.query<{ moved: number }>(INSERT_IF_HEAD, [
      customerId,
      head.seq,
      head.hash,
      next.head.seq,
      next.head.hash,
      next.json,
    ]);
    return row?.moved === 1 ? next.head : undefined;
  }

  /**
   * Moves the head if it is still `head` and COPYs the rows, in one transaction and one
   * simple-protocol query (PGlite: one message to the store's thread; Postgres: one round trip,
   * the data behind the query). In PGlite about a tenth less CPU per record than INSERT_IF_HEAD
   * (docs/benchmarks.md, seventh pass) and a fixed 0.2-0.4 ms less per batch than two queries
   * (fourteenth pass); on a Postgres server about half the server's CPU per record (twenty-fifth
   * pass). The new head, or undefined if it moved.
   */
  private async copyIfHead(
    q: Queryable & Required<Pick<Queryable, "copyRows">>,
    customerId: string,
    head: ChainHead,
    records: readonly PendingAuditRecord[],
  ): Promise<ChainHead | undefined> {
    const { rows, heads } = chainedAsCopy([{ customerId, head, records }]);
    const next = heads[0] as ChainHead;
    const guard = moveHeadGuard(customerId, head, next);
    const copied = await q.copyRows("audit_records", COPY_COLUMNS, rows, guard);
    return copied ? next : undefined;
  }
}
