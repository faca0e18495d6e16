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
 * not compiled in (a lookbehind at every position triples the cost): run the regex through
 * `anchored` / `anchoredMatches` (normalize/word-anchors.ts), which only accept word starts.
 */
export function rx(...parts: string[]): RegExp {
  const body = parts[0] === B ? parts.slice(1) : parts;
  return new RegExp(body.join(""), "gu");
}
