import { chainHash, GENESIS_HASH, recordDigest, type AuditFields } from "./audit-record.js";

/** A stored record: its fields (null once retention removed them) and its chain links. */
export interface ChainedRecord {
  seq: number;
  record_digest: string;
  prev_hash: string;
  hash: string;
  /** null for a tombstone (retention removed the fields; the digest stays). */
  fields: AuditFields | null;
}

export interface ChainBreak {
  seq: number;
  reason:
    | "digest_mismatch"
    | "prev_hash_mismatch"
    | "hash_mismatch"
    | "sequence_gap"
    | "checkpoint_mismatch";
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
