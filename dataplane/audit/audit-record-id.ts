import { timeOrderedHex } from "../core/time-ordered-id.js";

/**
 * A new audit record id: `aud_` and the 32 hex digits of a version 7 (time-ordered) UUID, so that
 * the store's index of records by id grows at its right edge instead of at random pages.
 */
export function newAuditRecordId(): string {
  return `aud_${timeOrderedHex()}`;
}
