/**
 * Context words: many values (a 7-digit phone number, a 9-digit SSN without dashes) are only PII
 * when the words before them say so. These helpers look at a short window before a match.
 */

const WORD = /[\p{L}\p{N}]/u;

/** The lowercased text of up to `width` code units before `start`. */
export function textBefore(text: string, start: number, width: number): string {
  return text.slice(Math.max(0, start - width), start).toLowerCase();
}

/**
 * Which keyword of `keywords` occurs last (closest to `start`) within `width` code units before it,
 * matched at word starts. Returns undefined when none does.
 */
export function closestKeywordBefore(
  text: string,
  start: number,
  width: number,
  keywords: readonly string[],
): string | undefined {
  const before = textBefore(text, start, width);
  let best: string | undefined;
  let bestAt = -1;
  for (const keyword of keywords) {
    let at = before.lastIndexOf(keyword);
    while (at >= 0) {
      if (at === 0 || !WORD.test(before[at - 1] ?? "")) break;
      at = at === 0 ? -1 : before.lastIndexOf(keyword, at - 1);
    }
    if (at > bestAt) {
      bestAt = at;
      best = keyword;
    }
  }
  return best;
}

export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}
