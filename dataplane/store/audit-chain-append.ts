import {
  canonicalJson,
  chainHash,
  fieldsWithSeq,
  GENESIS_HASH,
  sha256Hex,
} from "../audit/audit-record.js";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";
import { CopyRowPieces } from "./copy-row-pieces.js";
import { copyText } from "./copy-text.js";
import { sqlIntegerLiteral, sqlTextLiteral } from "./copy-guard.js";
import type { CopyData, Queryable } from "./database.js";
import type { PendingAuditRecord } from "./audit-repository.js";

/** Where a customer's chain ends: the last record's seq and hash (GENESIS_HASH at seq 0). */
export interface ChainHead {
  seq: number;
  hash: string;
}

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

/** Creates the head row if missing, locks it (FOR UPDATE) and reads it. */
const LOCK_HEAD = `
  INSERT INTO audit_chain_heads (customer_id, last_seq, last_hash) VALUES ($1, 0, $2)
  ON CONFLICT (customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id
  RETURNING last_seq, last_hash`;

/** One record placed in the chain: the columns of its row. */
interface ChainedRow {
  id: string;
  seq: number;
  occurredAt: string;
  /** The query columns: the fields' own values (verification compares them). */
  kind: string;
  requestId: string | null;
  model: string | null;
  outcome: string | null;
  /** The canonical JSON of the fields, seq included: what was digested, stored as it is. */
  fields: string;
  content: string | null;
  digest: string;
  prevHash: string;
  hash: string;
}

/** Chains `records` after `head`, handing each row to `row` in order; returns the new head. */
function chainRows(
  head: ChainHead,
  records: readonly PendingAuditRecord[],
  row: (r: ChainedRow) => void,
): ChainHead {
  let seq = head.seq;
  let prevHash = head.hash;
  for (const r of records) {
    seq += 1;
    const fields = fieldsWithSeq(r.fields, seq);
    // The digested text is the stored JSON too (a json column keeps the text as it came).
    const canonical = canonicalJson(fields);
    const digest = sha256Hex(canonical);
    const hash = chainHash(prevHash, digest);
    const content = r.content === null ? null : JSON.stringify(r.content);
    row({
      id: fields.id,
      seq,
      occurredAt: fields.occurred_at,
      kind: fields.kind,
      requestId: fields.request_id ?? null,
      model: fields.model ?? null,
      outcome: fields.outcome ?? null,
      fields: canonical,
      content,
      digest,
      prevHash,
      hash,
    });
    prevHash = hash;
  }
  return { seq, hash: prevHash };
}

const jsonOrNull = (value: string | null): string =>
  value === null ? "null" : JSON.stringify(value);
const copyOrNull = (value: string | null): string => (value === null ? "\\N" : copyText(value));

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

/** The audit_records columns of each row chainAfterAsCopy writes, in order. */
const COPY_COLUMNS = [
  "id",
  "customer_id",
  "seq",
  "occurred_at",
  "kind",
  "request_id",
  "model",
  "outcome",
  "fields",
  "content",
  "record_digest",
  "prev_hash",
  "hash",
] as const;

/**
 * The records chained after `head` as COPY data (COPY_COLUMNS) in pieces, and the new head: in
 * the binary format (copy-binary.ts), or in the text format when a record's time is not in the
 * form the gateway writes (Postgres then parses it, as it would anywhere else).
 */
function chainAfterAsCopy(
  customerId: string,
  head: ChainHead,
  records: readonly PendingAuditRecord[],
): { rows: CopyData; head: ChainHead } {
  const chained: { row: ChainedRow; micros: number | undefined }[] = [];
  let allTimesBinary = true;
  const next = chainRows(head, records, (row) => {
    const micros = isoToPgMicros(row.occurredAt);
    if (micros === undefined) allTimesBinary = false;
    chained.push({ row, micros });
  });
  if (allTimesBinary) {
    const rows = new CopyBinaryPieces();
    for (const { row: r, micros } of chained)
      rows
        .row(COPY_COLUMNS.length)
        .text(r.id)
        .text(customerId)
        .int8(r.seq)
        .int8(micros as number)
        .text(r.kind)
        .textOrNull(r.requestId)
        .textOrNull(r.model)
        .textOrNull(r.outcome)
        .text(r.fields)
        .textOrNull(r.content)
        .text(r.digest)
        .text(r.prevHash)
        .text(r.hash);
    return { rows: { format: "binary", pieces: rows.pieces() }, head: next };
  }
  const customer = copyText(customerId);
  const rows = new CopyRowPieces();
  for (const { row: r } of chained) {
    const content = r.content === null ? "\\N" : copyText(r.content);
    rows.add(
      `${copyText(r.id)}\t${customer}\t${r.seq}\t${copyText(r.occurredAt)}\t` +
        `${copyText(r.kind)}\t${copyOrNull(r.requestId)}\t${copyOrNull(r.model)}\t` +
        `${copyOrNull(r.outcome)}\t${copyText(r.fields)}\t${content}\t` +
        `${r.digest}\t${r.prevHash}\t${r.hash}\n`,
    );
  }
  return { rows: { format: "text", pieces: rows.pieces() }, head: next };
}

/** True when the store loads rows by COPY here (PGlite; Postgres outside a transaction). */
const hasCopy = (q: Queryable): q is Queryable & Required<Pick<Queryable, "copyRows">> =>
  q.copyRows !== undefined;

/**
 * Appends records to customers' chains. The head each append left is remembered, so the next
 * append for that customer is one statement that checks the head is unchanged (INSERT_IF_HEAD,
 * `appendAfterKnownHead`, no transaction needed); only a head not remembered yet, or moved by
 * someone else (another replica, a rolled-back transaction), costs a transaction that locks and
 * reads it (`appendLocked`). Safe to share: the store's head is the truth, the memory only a guess
 * that the statement checks. Where the store has COPY (PGlite; Postgres outside a transaction) the
 * rows go in by binary COPY after a statement that moves the head under the same check, both in
 * one transaction and one message.
 */
export class AuditChainAppender {
  private readonly heads = new Map<string, ChainHead>();

  /**
   * One statement, when this customer's head is remembered and still the store's: true. False
   * (nothing written, the head forgotten) otherwise; then use appendLocked.
   */
  async appendAfterKnownHead(
    q: Queryable,
    customerId: string,
    records: readonly PendingAuditRecord[],
  ): Promise<boolean> {
    const known = this.heads.get(customerId);
    if (known === undefined) return false;
    if (await this.insertIfHead(q, customerId, known, records)) return true;
    this.heads.delete(customerId);
    return false;
  }

  /** Locks the head (creating it for a new chain) and appends after it; `tx` is a transaction. */
  async appendLocked(
    tx: Queryable,
    customerId: string,
    records: readonly PendingAuditRecord[],
  ): Promise<void> {
    const [row] = await tx.query<{ last_seq: number; last_hash: string }>(LOCK_HEAD, [
      customerId,
      GENESIS_HASH,
    ]);
    const locked = { seq: row?.last_seq ?? 0, hash: row?.last_hash ?? GENESIS_HASH };
    if (!(await this.insertIfHead(tx, customerId, locked, records))) {
      throw new Error(`audit chain head of ${customerId} moved while locked`);
    }
  }

  private async insertIfHead(
    q: Queryable,
    customerId: string,
    head: ChainHead,
    records: readonly PendingAuditRecord[],
  ): Promise<boolean> {
    const next = hasCopy(q)
      ? await this.copyIfHead(q, customerId, head, records)
      : await this.insertJsonIfHead(q, customerId, head, records);
    if (next === undefined) return false;
    if (!this.heads.has(customerId) && this.heads.size >= HEADS_MAX) this.heads.clear();
    this.heads.set(customerId, next);
    return true;
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
   * Where the store has COPY: moves the head if it is still `head` and COPYs the rows, in one
   * transaction and one simple-protocol query (PGlite: one message to the store's thread;
   * Postgres: one round trip, the data behind the query). In PGlite about a tenth less CPU per
   * record than INSERT_IF_HEAD (docs/benchmarks.md, seventh pass) and a fixed 0.2-0.4 ms less per
   * batch than two queries (fourteenth pass); on a Postgres server about half the server's CPU
   * per record (twenty-fifth pass). The new head, or undefined if it moved.
   */
  private async copyIfHead(
    q: Queryable & Required<Pick<Queryable, "copyRows">>,
    customerId: string,
    head: ChainHead,
    records: readonly PendingAuditRecord[],
  ): Promise<ChainHead | undefined> {
    const next = chainAfterAsCopy(customerId, head, records);
    const guard = moveHeadGuard(customerId, head, next.head);
    const copied = await q.copyRows("audit_records", COPY_COLUMNS, next.rows, guard);
    return copied ? next.head : undefined;
  }
}
