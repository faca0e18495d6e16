/** One structural pattern of the injection scorer: a regex over folded text and its weight. */
export interface InjectionPattern {
  /** The family, reported as the signal label: "instruction_override", "role_play", ... */
  label: string;
  /** How strongly one match alone indicates an injection, in [0, 1]. */
  weight: number;
  /** Must carry the `g` flag; matched against folded, lower-cased text. */
  regex: RegExp;
}

/** A word boundary that also works next to non-ASCII letters (ü, é, ñ). */
export const B = "(?<![\\p{L}\\p{N}])";
export const E = "(?![\\p{L}\\p{N}])";

/**
 * Build a global, unicode regex from parts, so long alternations stay readable. A leading `B` is
 * not compiled in (a lookbehind at every position triples the cost); matchers check it with
 * `startsAtWordBoundary` instead.
 */
export function rx(...parts: string[]): RegExp {
  const body = parts[0] === B ? parts.slice(1) : parts;
  return new RegExp(body.join(""), "gu");
}

function isWordCode(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 0xc0 && c !== 0xd7 && c !== 0xf7)
  );
}

/** False when a match starting at `index` with a letter or digit continues a word to its left. */
export function startsAtWordBoundary(text: string, index: number): boolean {
  return (
    index === 0 || !isWordCode(text.charCodeAt(index)) || !isWordCode(text.charCodeAt(index - 1))
  );
}

/** Matches of `re` in `text` that start at a word boundary, at most `max` of them. */
export function* wordMatches(re: RegExp, text: string, max: number): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  let found = 0;
  for (const m of text.matchAll(re)) {
    if (!startsAtWordBoundary(text, m.index)) continue;
    yield m;
    if (++found >= max) return;
  }
}
