/** JSON comparisons used to detect drift. */
import { sameQuantity } from "../kube/quantity.js";

/** Deep equality of JSON values where a missing field equals an empty array, object or null. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(normalize(value)) ?? "null";
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalize);
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, normalize(v)] as const)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value === null ? undefined : value;
}

/**
 * The body fields whose values differ in the native object. Fields the native API does not echo back
 * are skipped, so a response shape without them never causes a PATCH on every reconcile.
 */
export function driftedFields(body: object, native: object): string[] {
  const nativeRecord = native as Record<string, unknown>;
  return Object.entries(body)
    .filter(([key, value]) => key in nativeRecord && !sameJson(value, nativeRecord[key]))
    .map(([key]) => key);
}

/** Maps whose values the API server stores as canonical quantities, and single quantity fields. */
const QUANTITY_MAPS = new Set(["requests", "limits"]);
const QUANTITY_FIELDS = new Set(["sizeLimit"]);

/**
 * True when every field of part is present with the same value in whole (server defaults ignored).
 * Quantities (resources requests / limits, emptyDir sizeLimit) compare by value: "0.5" equals a
 * stored "500m".
 */
export function containsJson(whole: unknown, part: unknown, quantity = false): boolean {
  if (Array.isArray(part)) {
    return (
      Array.isArray(whole) &&
      whole.length === part.length &&
      part.every((item, i) => containsJson(whole[i], item))
    );
  }
  if (typeof part === "object" && part !== null) {
    if (typeof whole !== "object" || whole === null || Array.isArray(whole)) return false;
    const record = whole as Record<string, unknown>;
    const map = Object.entries(part);
    return map.every(([key, value]) =>
      typeof value === "object" && value !== null && QUANTITY_MAPS.has(key)
        ? Object.entries(value).every(([k, v]) =>
            containsJson((record[key] as Record<string, unknown> | undefined)?.[k], v, true),
          )
        : containsJson(record[key], value, QUANTITY_FIELDS.has(key)),
    );
  }
  if (quantity && sameQuantity(whole, part)) return true;
  return (
    whole === part ||
    (typeof part === "number" && typeof whole === "string" && String(part) === whole)
  );
}
