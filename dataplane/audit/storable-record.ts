import { hasLoneSurrogate } from "../core/storable-text.js";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { canonicalJson, sha256Hex } from "./audit-record.js";

/**
 * Makes a record storable without losing what it said. Postgres (and PGlite) refuse a JSON string
 * holding U+0000 or a lone UTF-16 surrogate, and deep nesting can exhaust a parser's stack, so:
 *
 * - a string holding either is stored escaped: `\` becomes `\\`, U+0000 becomes `\u0000` and a
 *   lone surrogate `\udXXX` (4 lowercase hex digits); its JSON pointer is listed in `escaped`
 *   (or, for a member name, in `escaped_keys`). unescapeStoredString() reverses it exactly.
 * - an object or array nested deeper than MAX_STORED_DEPTH is stored as its canonical JSON text
 *   (a string) and its pointer is listed in `folded`; JSON.parse of that text gives it back.
 *
 * Pointers (RFC 6901) address the record as the API shows it: the fields at the top level and the
 * content under `/content`. The lists are part of the hashed fields, so the record says, tamper-
 * evidently, what was escaped. `content_sha256` is recomputed over the content as stored.
 */
export const MAX_STORED_DEPTH = 64;

const NEEDS_ESCAPE = /\\|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const NUL = String.fromCharCode(0);

/** True when the store would refuse the string (it holds U+0000 or a lone surrogate). */
export function needsEscape(s: string): boolean {
  return s.includes(NUL) || hasLoneSurrogate(s);
}

/** The stored form of a string that needs it (see above); other strings are stored as they are. */
export function escapeForStore(s: string): string {
  return s
    .replace(NEEDS_ESCAPE, (m) =>
      m === "\\" ? "\\\\" : `\\u${m.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
    .replaceAll(NUL, "\\u0000");
}

/** Reverses escapeForStore() for a string whose pointer is listed in `escaped`/`escaped_keys`. */
export function unescapeStoredString(s: string): string {
  return s.replace(/\\(\\|u[0-9a-f]{4})/g, (_, e: string) =>
    e === "\\" ? "\\" : String.fromCharCode(Number.parseInt(e.slice(1), 16)),
  );
}

interface Notes {
  escaped: string[];
  escapedKeys: string[];
  folded: string[];
}

const pointerToken = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

function clean(value: unknown, pointer: string, depth: number, notes: Notes): unknown {
  if (typeof value === "string") {
    if (!needsEscape(value)) return value;
    notes.escaped.push(pointer);
    return escapeForStore(value);
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_STORED_DEPTH) {
    notes.folded.push(pointer);
    return canonicalJson(value); // JSON text escapes U+0000 and lone surrogates itself
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => clean(item, `${pointer}/${i}`, depth + 1, notes));
  }
  const out: Record<string, unknown> = {};
  for (const [rawKey, item] of Object.entries(value as Record<string, unknown>)) {
    let key = rawKey;
    if (needsEscape(rawKey)) {
      key = escapeForStore(rawKey);
      notes.escapedKeys.push(`${pointer}/${pointerToken(key)}`);
    }
    out[key] = clean(item, `${pointer}/${pointerToken(key)}`, depth + 1, notes);
  }
  return out;
}

const union = (a: string[] | undefined, b: string[]) => [...new Set([...(a ?? []), ...b])];

/**
 * True when `clean` would change something under `value`: a string or member name to escape, or
 * a subtree nested too deeply. Reads only (for-in, not Object.keys: an inherited name it may also
 * list can only make it say "needs cleaning", and clean() then finds nothing and changes
 * nothing), so the common record costs no copy and allocates nothing per node. The recursion
 * ends at MAX_STORED_DEPTH (deeper is "needs cleaning"), so any input is safe for the stack.
 */
function needsCleaning(value: unknown, depth: number): boolean {
  if (typeof value === "string") return needsEscape(value);
  if (value === null || typeof value !== "object") return false;
  if (depth >= MAX_STORED_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (needsCleaning(value[i], depth + 1)) return true;
    }
    return false;
  }
  const members = value as Record<string, unknown>;
  for (const key in members) {
    if (needsEscape(key) || needsCleaning(members[key], depth + 1)) return true;
  }
  return false;
}

/** needsCleaning of the fields, the lists of what was escaped left out (they are not cleaned). */
function fieldsNeedCleaning(fields: PendingAuditRecord["fields"]): boolean {
  for (const key in fields) {
    if (key === "escaped" || key === "escaped_keys" || key === "folded") continue;
    if (needsEscape(key)) return true;
    if (needsCleaning((fields as unknown as Record<string, unknown>)[key], 1)) return true;
  }
  return false;
}

/** The record as the store can hold it; the same object when nothing needed changing. */
export function storableRecord(record: PendingAuditRecord): PendingAuditRecord {
  if (!fieldsNeedCleaning(record.fields) && !needsCleaning(record.content, 1)) return record;
  const notes: Notes = { escaped: [], escapedKeys: [], folded: [] };
  const { escaped, escaped_keys, folded, ...plain } = record.fields;
  const fields = clean(plain, "", 0, notes) as typeof plain;
  const fieldNotes = notes.escaped.length + notes.escapedKeys.length + notes.folded.length;
  const content =
    record.content === null
      ? null
      : (clean(record.content, "/content", 1, notes) as Record<string, unknown>);
  const contentChanged =
    notes.escaped.length + notes.escapedKeys.length + notes.folded.length > fieldNotes;
  if (notes.escaped.length + notes.escapedKeys.length + notes.folded.length === 0) return record;
  const lists = {
    escaped: union(escaped, notes.escaped),
    escaped_keys: union(escaped_keys, notes.escapedKeys),
    folded: union(folded, notes.folded),
  };
  return {
    fields: {
      ...fields,
      ...(contentChanged ? { content_sha256: sha256Hex(canonicalJson(content)) } : {}),
      ...(lists.escaped.length > 0 ? { escaped: lists.escaped } : {}),
      ...(lists.escaped_keys.length > 0 ? { escaped_keys: lists.escaped_keys } : {}),
      ...(lists.folded.length > 0 ? { folded: lists.folded } : {}),
    },
    content,
  };
}
