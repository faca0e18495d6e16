/**
 * Canonical JSON: object members sorted by UTF-16 code unit at every level, so the same fields
 * always give the same bytes (what audit record digests and cache keys are computed over).
 */
type CanonicalWork = { text: string } | { value: unknown };

/** Nesting handled by plain recursion; deeper subtrees go through the explicit stack. */
const RECURSION_DEPTH = 256;

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with object keys sorted at every level: the same fields always give the same bytes.
 * Recursive for ordinary depths (fast), iterative (an explicit stack) below RECURSION_DEPTH, so
 * any nesting depth a body can carry is fine. Members whose value is undefined are left out;
 * other non-JSON values are written as JSON.stringify writes them inside an array (null).
 * A value whose members are all in canonical order already is written by JSON.stringify itself.
 */
export function canonicalJson(value: unknown): string {
  if (value !== null && typeof value === "object" && writtenAsIs(value)) {
    return JSON.stringify(value);
  }
  return canonicalAt(value, 0);
}

/** Deepest subtree handed to JSON.stringify whole (deeper ones take the general path). */
const AS_IS_DEPTH = 64;

/**
 * True when JSON.stringify(value) writes the canonical text itself, in one native pass with no
 * intermediate strings: every object is a plain one (prototype Object.prototype) whose
 * member names already come in ascending code-unit order, every array a plain array, every other
 * value a string, number, boolean, null or undefined (JSON.stringify and canonicalAt write those
 * alike: undefined members left out, undefined array items null), and nothing deeper than
 * AS_IS_DEPTH. Reads only (for-in over a plain object allocates nothing); stops at the first
 * value that does not qualify. Records are built with their members in this order
 * (call-record.ts, fieldsWithSeq) so the common record qualifies.
 */
function writtenAsIs(value: object): boolean {
  // A toJSON on the shared prototypes would be called by JSON.stringify, not by canonicalAt.
  if ("toJSON" in Object.prototype || "toJSON" in Array.prototype) return false;
  return asIsAt(value, 0);
}

function asIsAt(v: unknown, depth: number): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
      return true;
    case "object":
      break;
    default:
      return false; // function, symbol, bigint: canonicalAt writes these its own way
  }
  if (depth >= AS_IS_DEPTH) return false;
  const prototype = Object.getPrototypeOf(v) as unknown;
  if (Array.isArray(v)) {
    if (prototype !== Array.prototype || (v as { toJSON?: unknown }).toJSON !== undefined) {
      return false;
    }
    for (let i = 0; i < v.length; i++) if (!asIsAt(v[i], depth + 1)) return false;
    return true;
  }
  // Not null-prototype objects either: JSON.rawJSON makes those, and JSON.stringify writes them raw.
  if (prototype !== Object.prototype) return false;
  const members = v as Record<string, unknown>;
  let previous: string | undefined;
  // for-in lists own names first, in Object.keys order; inherited enumerable names (none on a
  // clean Object.prototype) would only come after them, and both writers ignore those members.
  for (const name in members) {
    if (previous !== undefined && !(previous < name)) return false;
    previous = name;
    if (!asIsAt(members[name], depth + 1)) return false;
  }
  return true;
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
