import { canonicalJson, chainHash, fieldsWithSeq, sha256Hex } from "../audit/audit-record.js";
import { CopyBinaryPieces, isoToPgMicros } from "./copy-binary.js";
import { CopyRowPieces } from "./copy-row-pieces.js";
import { copyText } from "./copy-text.js";
import type { CopyData } from "./database.js";
import type { PendingAuditRecord } from "./audit-repository.js";

/** Where a customer's chain ends: the last record's seq and hash (GENESIS_HASH at seq 0). */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** One record placed in the chain: the columns of its row. */
export interface ChainedRow {
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
export function chainRows(
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

/** The audit_records columns of each row chainedAsCopy writes, in order. */
export const COPY_COLUMNS = [
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

/** One customer's records to chain after its head. */
export interface ChainAppend {
  customerId: string;
  head: ChainHead;
  records: readonly PendingAuditRecord[];
}

const copyOrNull = (value: string | null): string => (value === null ? "\\N" : copyText(value));

/**
 * Every append's records chained after its head, as the COPY data of one batch (COPY_COLUMNS) in
 * pieces, and each append's new head, in order: in the binary format (copy-binary.ts), or in the
 * text format when a record's time is not in the form the gateway writes (Postgres then parses
 * it, as it would anywhere else).
 */
export function chainedAsCopy(appends: readonly ChainAppend[]): {
  rows: CopyData;
  heads: ChainHead[];
} {
  const chained: { customerId: string; row: ChainedRow; micros: number | undefined }[] = [];
  let allTimesBinary = true;
  const heads = appends.map(({ customerId, head, records }) =>
    chainRows(head, records, (row) => {
      const micros = isoToPgMicros(row.occurredAt);
      if (micros === undefined) allTimesBinary = false;
      chained.push({ customerId, row, micros });
    }),
  );
  if (allTimesBinary) {
    const rows = new CopyBinaryPieces();
    for (const { customerId, row: r, micros } of chained)
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
    return { rows: rows.copyData(), heads };
  }
  const rows = new CopyRowPieces();
  for (const { customerId, row: r } of chained) {
    const content = r.content === null ? "\\N" : copyText(r.content);
    rows.add(
      `${copyText(r.id)}\t${copyText(customerId)}\t${r.seq}\t${copyText(r.occurredAt)}\t` +
        `${copyText(r.kind)}\t${copyOrNull(r.requestId)}\t${copyOrNull(r.model)}\t` +
        `${copyOrNull(r.outcome)}\t${copyText(r.fields)}\t${content}\t` +
        `${r.digest}\t${r.prevHash}\t${r.hash}\n`,
    );
  }
  return { rows: { format: "text", pieces: rows.pieces() }, heads };
}
