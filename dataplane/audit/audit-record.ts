import { hash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

export { canonicalJson } from "./canonical-json.js";

/**
 * The audit record and its hash chain.
 *
 * Each customer has its own chain (so customers verify and export independently, and writes for
 * different customers do not serialise on one lock). Record n of a chain stores:
 *   record_digest = SHA-256(canonical JSON of the record's fields, seq included)
 *   hash          = SHA-256(prev_hash || record_digest)      (both as lowercase hex strings)
 *   prev_hash     = hash of record n-1, or GENESIS_HASH for seq 1
 * Editing a field breaks record_digest; removing or reordering a record breaks seq continuity or
 * prev_hash; recomputing everything after an edit is caught by the signed checkpoints.
 * Retention removes a record's fields but keeps seq, record_digest, prev_hash and hash (a
 * tombstone), so the chain still verifies after deletion.
 */
export const GENESIS_HASH = "0".repeat(64);

export type AuditKind = "inference" | "management";

export interface AuditVerdict {
  check: string;
  action: string;
  score: number;
  threshold: number;
}

/** Every field that the record digest covers. Absent values are null, never undefined. */
export interface AuditFields {
  id: string;
  customer_id: string;
  seq: number;
  occurred_at: string; // ISO 8601, UTC, millisecond precision
  kind: AuditKind;
  request_id: string | null;
  key_id: string | null;
  /** inference: endpoint ("chat.completions"...); management: action ("key.create"...). */
  action: string;
  /** inference: model requested; management: resource id. */
  subject: string | null;
  model: string | null;
  backend: string | null;
  route: Record<string, unknown> | null;
  classification: string | null;
  verdicts: AuditVerdict[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    source: string;
  } | null;
  cost_usd: number | null;
  latency_ms: number | null;
  status: number | null;
  error_code: string | null;
  outcome: string | null;
  request_sha256: string | null;
  response_sha256: string | null;
  /** SHA-256 of the stored content (when content is kept); the content itself is not chained. */
  content_sha256: string | null;
  details: Record<string, unknown> | null;
  /**
   * Present only when the store could not hold a string as sent (see storable-record.ts): JSON
   * pointers into the record (fields at the top, `content` beside them) of string values that
   * were escaped, of members whose name was escaped, and of subtrees kept as JSON text.
   */
  escaped?: string[];
  escaped_keys?: string[];
  folded?: string[];
}

/**
 * A record's fields with its seq, as digested. When they hold only AuditFields' own members (a
 * record this gateway made, from memory or read back), the object is built with its members in
 * canonical order, so canonicalJson writes it with one JSON.stringify when the nested values are
 * in order too; otherwise it is `{ ...fields, seq }`. Either way the canonical text is the same
 * (members left undefined are written by neither).
 */
export function fieldsWithSeq(f: Omit<AuditFields, "seq">, seq: number): AuditFields {
  for (const name in f) if (!FIELD_NAMES.has(name)) return { ...f, seq };
  return inCanonicalOrder(f, seq);
}

/** Every AuditFields member, in canonical (code-unit) order: the one list of them. */
function inCanonicalOrder(f: Omit<AuditFields, "seq">, seq: number): AuditFields {
  return {
    action: f.action,
    backend: f.backend,
    classification: f.classification,
    content_sha256: f.content_sha256,
    cost_usd: f.cost_usd,
    customer_id: f.customer_id,
    details: f.details,
    error_code: f.error_code,
    escaped: f.escaped,
    escaped_keys: f.escaped_keys,
    folded: f.folded,
    id: f.id,
    key_id: f.key_id,
    kind: f.kind,
    latency_ms: f.latency_ms,
    model: f.model,
    occurred_at: f.occurred_at,
    outcome: f.outcome,
    request_id: f.request_id,
    request_sha256: f.request_sha256,
    response_sha256: f.response_sha256,
    route: f.route,
    seq,
    status: f.status,
    subject: f.subject,
    usage: f.usage,
    verdicts: f.verdicts,
  };
}

/** Every member AuditFields can have (the object above lists its members even when undefined). */
const FIELD_NAMES: ReadonlySet<string> = new Set(
  Object.keys(inCanonicalOrder({} as Omit<AuditFields, "seq">, 0)),
);

/** One-shot hash: no Hash object per call. */
export function sha256Hex(data: string | Buffer): string {
  return hash("sha256", data, "hex");
}

export function recordDigest(fields: AuditFields): string {
  return sha256Hex(canonicalJson(fields));
}

export function chainHash(prevHash: string, digest: string): string {
  return sha256Hex(prevHash + digest);
}

/** What a checkpoint signs: one line, so any tool can reproduce it. */
export function checkpointMessage(c: {
  customer_id: string;
  seq: number;
  hash: string;
  created_at: string;
}): string {
  return `evident-audit-checkpoint:v1:${c.customer_id}:${c.seq}:${c.hash}:${c.created_at}`;
}
