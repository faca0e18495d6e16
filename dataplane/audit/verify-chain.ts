import {
  canonicalJson,
  chainHash,
  GENESIS_HASH,
  recordDigest,
  sha256Hex,
  type AuditFields,
} from "./audit-record.js";

/** The row's other columns, which must say what the hashed fields say. */
export interface RecordColumns {
  id: string;
  customer_id: string;
  occurred_at: Date;
  kind: string | null;
  request_id: string | null;
  model: string | null;
  outcome: string | null;
  tombstoned: boolean;
  content: Record<string, unknown> | null;
}

/** A stored record: its fields (null once retention removed them) and its chain links. */
export interface ChainedRecord {
  seq: number;
  record_digest: string;
  prev_hash: string;
  hash: string;
  /** null for a tombstone (retention removed the fields; the digest stays). */
  fields: AuditFields | null;
  /** When given (records read from the store), compared with the fields: see columnsAgree(). */
  row?: RecordColumns;
}

export interface ChainBreak {
  seq: number;
  reason:
    | "digest_mismatch"
    | "prev_hash_mismatch"
    | "hash_mismatch"
    | "sequence_gap"
    | "checkpoint_mismatch"
    | "column_mismatch"
    | "content_mismatch";
}

export interface ChainReport {
  ok: boolean;
  checked: number;
  first_seq: number | null;
  last_seq: number | null;
  last_hash: string;
  first_broken: ChainBreak | null;
}

/**
 * Verifies records in seq order. `anchor` is the hash before the first record (GENESIS_HASH from
 * seq 1; otherwise a trusted hash, e.g. from a signed checkpoint). `expectedHashes` maps seqs to
 * checkpointed hashes that must match. Stops at the first broken link.
 */
export async function verifyChain(
  records: AsyncIterable<ChainedRecord> | Iterable<ChainedRecord>,
  anchor: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH },
  expectedHashes: ReadonlyMap<number, string> = new Map(),
): Promise<ChainReport> {
  let prev = anchor.hash;
  let expectedSeq = anchor.seq + 1;
  let checked = 0;
  let first: number | null = null;
  let last: number | null = null;
  const fail = (seq: number, reason: ChainBreak["reason"]): ChainReport => ({
    ok: false,
    checked,
    first_seq: first,
    last_seq: last,
    last_hash: prev,
    first_broken: { seq, reason },
  });
  for await (const r of records) {
    if (r.seq !== expectedSeq) return fail(expectedSeq, "sequence_gap");
    if (
      r.fields !== null &&
      (r.fields.seq !== r.seq || recordDigest(r.fields) !== r.record_digest)
    ) {
      return fail(r.seq, "digest_mismatch");
    }
    if (r.row && !columnsAgree(r.row, r.fields)) return fail(r.seq, "column_mismatch");
    if (
      r.row?.content &&
      r.fields &&
      sha256Hex(canonicalJson(r.row.content)) !== r.fields.content_sha256
    )
      return fail(r.seq, "content_mismatch");
    if (r.prev_hash !== prev) return fail(r.seq, "prev_hash_mismatch");
    if (chainHash(r.prev_hash, r.record_digest) !== r.hash) return fail(r.seq, "hash_mismatch");
    const checkpoint = expectedHashes.get(r.seq);
    if (checkpoint !== undefined && checkpoint !== r.hash)
      return fail(r.seq, "checkpoint_mismatch");
    prev = r.hash;
    expectedSeq += 1;
    checked += 1;
    first ??= r.seq;
    last = r.seq;
  }
  return {
    ok: true,
    checked,
    first_seq: first,
    last_seq: last,
    last_hash: prev,
    first_broken: null,
  };
}

/**
 * A row's query columns must equal the hashed fields they index (they are generated from them, but
 * someone with DDL rights could drop that), and only a tombstone may lack fields.
 */
function columnsAgree(row: RecordColumns, fields: AuditFields | null): boolean {
  if (fields === null) {
    return (
      row.tombstoned &&
      row.kind === null &&
      row.request_id === null &&
      row.model === null &&
      row.outcome === null
    );
  }
  return (
    !row.tombstoned &&
    row.id === fields.id &&
    row.customer_id === fields.customer_id &&
    row.occurred_at.getTime() === Date.parse(fields.occurred_at) &&
    row.kind === fields.kind &&
    row.request_id === fields.request_id &&
    row.model === fields.model &&
    row.outcome === fields.outcome
  );
}
