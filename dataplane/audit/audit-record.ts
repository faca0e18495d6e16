import { hash } from "node:crypto";

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

type CanonicalWork = { text: string } | { value: unknown };

/** Nesting handled by plain recursion; deeper subtrees go through the explicit stack. */
const RECURSION_DEPTH = 256;

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with object keys sorted at every level: the same fields always give the same bytes.
 * Recursive for ordinary depths (fast), iterative (an explicit stack) below RECURSION_DEPTH, so
 * any nesting depth a body can carry is fine. Members whose value is undefined are left out;
 * other non-JSON values are written as JSON.stringify writes them inside an array (null).
 */
export function canonicalJson(value: unknown): string {
  return canonicalAt(value, 0);
}

function canonicalAt(v: unknown, depth: number): string {
  if (v === null || typeof v !== "object") return primitiveJson(v);
  if (depth >= RECURSION_DEPTH) return canonicalIterative(v);
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      out += canonicalAt(v[i], depth + 1);
    }
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  sortKeys(keys);
  let out = "{";
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue;
    if (out.length > 1) out += ",";
    out += quotedKey(k);
    out += ":";
    out += canonicalAt(x, depth + 1);
  }
  return `${out}}`;
}

/** Below this many members, an insertion sort (no allocation; Array.prototype.sort allocates). */
const INSERTION_SORT_MAX = 24;

/** Sorts member names by UTF-16 code unit, in place; already sorted names are left as they are. */
function sortKeys(keys: string[]): void {
  if (keys.length > INSERTION_SORT_MAX) {
    for (let i = 1; i < keys.length; i++) {
      if ((keys[i - 1] as string) > (keys[i] as string)) {
        keys.sort(byCodeUnit);
        return;
      }
    }
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
}

/** Member names repeat from record to record: their JSON form is kept (a bounded number). */
const QUOTED_KEYS_MAX = 4096;
const quotedKeys = new Map<string, string>();

function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < QUOTED_KEYS_MAX && k.length <= 64) quotedKeys.set(k, q);
  }
  return q;
}

function primitiveJson(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  return (JSON.stringify(v ?? null) as string | undefined) ?? "undefined";
}

function canonicalIterative(value: unknown): string {
  let out = "";
  const stack: CanonicalWork[] = [{ value }];
  for (let work = stack.pop(); work !== undefined; work = stack.pop()) {
    if ("text" in work) {
      out += work.text;
      continue;
    }
    const v = work.value;
    if (v === null || typeof v !== "object") {
      out += primitiveJson(v);
    } else if (Array.isArray(v)) {
      out += "[";
      stack.push({ text: "]" });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] as unknown });
        if (i > 0) stack.push({ text: "," });
      }
    } else {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => byCodeUnit(a, b));
      out += "{";
      stack.push({ text: "}" });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i] as [string, unknown];
        stack.push({ value: x });
        stack.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(k)}:` });
      }
    }
  }
  return out;
}

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
