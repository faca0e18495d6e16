/**
 * An audit record's fields or content as the store keeps them: the canonical JSON text the
 * gateway digested (migration 21), parsed. `null` stays null (removed by retention, or no
 * content). Text that is not JSON was written by someone other than the gateway: it comes back
 * as `undefined`, and verification reports the record as altered (docs/audit.md).
 */
export function parseStoredJson<T>(text: string | null): T | null | undefined {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
