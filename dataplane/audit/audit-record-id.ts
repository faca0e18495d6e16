import { randomFillSync } from "node:crypto";

/** Ids drawn from one fill of the random pool (as crypto.randomUUID keeps a batch of its own). */
const IDS_PER_FILL = 256;

const pool = Buffer.allocUnsafeSlow(16 * IDS_PER_FILL);
let next = IDS_PER_FILL;

/**
 * A new audit record id: `aud_` and the 32 hex digits of a random (version 4) UUID, as
 * `aud_${randomUUID().replace(/-/g, "")}` gives, in one hex conversion of 16 pooled random bytes
 * instead of a hyphenated string built piece by piece and then rewritten without its hyphens.
 */
export function newAuditRecordId(): string {
  if (next === IDS_PER_FILL) {
    randomFillSync(pool);
    next = 0;
  }
  const at = 16 * next++;
  pool[at + 6] = ((pool[at + 6] as number) & 0x0f) | 0x40; // version 4
  pool[at + 8] = ((pool[at + 8] as number) & 0x3f) | 0x80; // RFC 9562 variant
  return `aud_${pool.toString("hex", at, at + 16)}`;
}
