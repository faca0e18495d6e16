/**
 * Runs a global regex over a text in bounded windows, so a pattern that is at worst quadratic
 * (what regex-safety.ts lets through) costs at most WINDOW^2 steps per window: linear in the text.
 *
 * Windows are WINDOW characters long and advance by WINDOW - MAX_MATCH; a match is kept by the
 * window in which it starts, before that window's overlap. Each window also sees the character
 * before it (matching starts at lastIndex 1), so `\b`, `^` without `m`, and lookbehinds behave as
 * on the whole text, and the scan resumes after the previous match as a global scan does. The cost:
 * a match longer than MAX_MATCH characters may be cut at the end of its window (it is still
 * reported, shortened).
 */
import type { Span } from "../verdict.js";

export const WINDOW = 4096;
export const MAX_MATCH = 1024;

export interface WindowOptions {
  window?: number;
  maxMatch?: number;
}

/** Non-overlapping matches of `regex` (which must have the `g` flag) in text order. */
export function findRegexMatches(regex: RegExp, text: string, options: WindowOptions = {}): Span[] {
  const window = options.window ?? WINDOW;
  const maxMatch = Math.min(options.maxMatch ?? MAX_MATCH, window - 1);
  const stride = window - maxMatch;
  const spans: Span[] = [];
  let resumeAt = 0;
  for (let start = 0; start < text.length; start += stride) {
    const last = start + window >= text.length;
    const acceptBefore = last ? text.length : start + stride;
    const offset = Math.max(0, start - 1);
    const slice = text.slice(offset, start + window);
    regex.lastIndex = Math.max(start, resumeAt) - offset;
    while (regex.lastIndex <= slice.length) {
      const match = regex.exec(slice);
      if (match === null) break;
      const matchStart = offset + match.index;
      if (matchStart >= acceptBefore) break;
      const matchEnd = matchStart + match[0].length;
      if (match[0].length === 0) {
        regex.lastIndex = match.index + 1;
        continue;
      }
      spans.push({ start: matchStart, end: matchEnd });
      resumeAt = matchEnd;
    }
    if (last) break;
  }
  regex.lastIndex = 0;
  return spans;
}
