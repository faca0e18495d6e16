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
 *
 * Measured (Node 24, shared 2-core machine; see the lead's report for the command): an accepted but
 * quadratic pattern on adversarial 50 KB input (`\s+$` on 50 000 spaces, `x.*y` on 50 000 "x")
 * costs about 170-310 ms with these windows, against 9 s on the whole text; an ordinary pattern
 * scans 54 KB in about 1-10 ms.
 */
import type { Span } from "../verdict.js";

export const WINDOW = 1024;
export const MAX_MATCH = 256;

export interface WindowOptions {
  window?: number;
  maxMatch?: number;
}

/**
 * A rule regex prepared for windowed matching. Windows other than the last use the pattern
 * followed by `(?=[\s\S])`, so `$` (and a greedy run) cannot end a match at a window's artificial
 * end; the last window uses the pattern as written.
 */
export class WindowedRegex {
  private readonly whole: RegExp;
  private readonly inner: RegExp;
  private readonly window: number;
  private readonly maxMatch: number;

  constructor(pattern: string, flags: string, options: WindowOptions = {}) {
    this.whole = new RegExp(pattern, `${flags}g`);
    this.inner = new RegExp(`(?:${pattern})(?=[\\s\\S])`, `${flags}g`);
    this.window = options.window ?? WINDOW;
    this.maxMatch = Math.min(options.maxMatch ?? MAX_MATCH, this.window - 1);
  }

  /** Non-overlapping matches in text order. */
  find(text: string): Span[] {
    const stride = this.window - this.maxMatch;
    const spans: Span[] = [];
    let resumeAt = 0;
    for (let start = 0; start < text.length; start += stride) {
      const last = start + this.window >= text.length;
      const regex = last ? this.whole : this.inner;
      const acceptBefore = last ? text.length : start + stride;
      const offset = Math.max(0, start - 1);
      const slice = text.slice(offset, start + this.window);
      regex.lastIndex = Math.max(start, resumeAt) - offset;
      while (regex.lastIndex <= slice.length) {
        const match = regex.exec(slice);
        if (match === null) break;
        const matchStart = offset + match.index;
        if (matchStart >= acceptBefore) break;
        if (match[0].length === 0) {
          regex.lastIndex = match.index + 1;
          continue;
        }
        spans.push({ start: matchStart, end: matchStart + match[0].length });
        resumeAt = matchStart + match[0].length;
      }
      regex.lastIndex = 0;
      if (last) break;
    }
    return spans;
  }
}
