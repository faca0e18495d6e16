/**
 * Text that every store and JSON consumer keeps exactly: no U+0000 and no unpaired UTF-16
 * surrogate. One definition for the HTTP edge, the audit log, prompts and batch lines.
 */

/** True when `s` holds an unpaired UTF-16 surrogate (checked natively, no regular expression). */
export function hasLoneSurrogate(s: string): boolean {
  return !s.isWellFormed();
}

export function isStorableText(s: string): boolean {
  return !s.includes("\u0000") && s.isWellFormed();
}
