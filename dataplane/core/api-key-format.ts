import { hash, randomBytes, timingSafeEqual } from "node:crypto";

export const KEY_PREFIX = "ev_sk_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = /^ev_sk_[A-Za-z0-9]{32,128}$/;
const RANDOM_LENGTH = 40;

/** A new key: the prefix and 40 uniformly random base62 characters (~238 bits). */
export function generateApiKey(): string {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < KEY_PREFIX.length + RANDOM_LENGTH) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/** Keys are long and random, so one SHA-256 is the right hash (as for other bearer tokens). */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** A display hint that cannot be used to recover the key. */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}...`;
}

/** Constant-time equality for two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
