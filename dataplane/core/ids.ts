import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A prefixed random identifier such as `cus_4f9...` (not a secret). */
export function newId(prefix: string, length = 24): string {
  let out = `${prefix}_`;
  for (const byte of randomBytes(length)) out += ALPHABET[byte % 62];
  return out;
}
