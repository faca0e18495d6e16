/**
 * Text that every store and JSON consumer keeps exactly: no U+0000 and no unpaired UTF-16
 * surrogate. One definition for the HTTP edge, the audit log, prompts and batch lines.
 */

// Without the `u` flag a regex sees UTF-16 code units, so unpaired halves are visible.
export const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

export function isStorableText(s: string): boolean {
  return !s.includes("\u0000") && !LONE_SURROGATE.test(s);
}
