/**
 * Text that every store and JSON consumer keeps exactly: no U+0000 and no unpaired UTF-16
 * surrogate. One definition for the HTTP edge, the audit log, prompts and batch lines.
 */

/** String.prototype.isWellFormed (ES2024, in Node 24; the project's TypeScript lib is ES2023). */
const isWellFormed = (s: string): boolean =>
  (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** True when `s` holds an unpaired UTF-16 surrogate (checked natively, no regular expression). */
export function hasLoneSurrogate(s: string): boolean {
  return !isWellFormed(s);
}

export function isStorableText(s: string): boolean {
  return !s.includes("\u0000") && isWellFormed(s);
}
