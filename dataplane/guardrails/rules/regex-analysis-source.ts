/**
 * Rewrites a JavaScript regex source into the dialect the `ret` parser understands, keeping what
 * matters for backtracking analysis: the quantifier structure and (conservatively) the characters
 * each part can match. The rewritten source is only analysed, never executed.
 *
 * - `\uXXXX`, `\u{X...}`: the literal character (ret reads them as the letters "u0041").
 * - `\p{L...}` / `\p{N...}` (letters, numbers): ASCII letters / digits plus every non-ASCII
 *   non-space character; other properties and `\P{...}`: any character (supersets: more overlap,
 *   so more caution).
 * - lazy quantifiers (`+?`, `*?`, `??`, `{n,m}?`): the greedy form (ret reads `a+?` as a nested
 *   quantifier; greedy and lazy have the same worst case).
 * - lookbehind `(?<=` / `(?<!`: the lookahead form (ret has no lookbehind; both are zero-width).
 */

/** Every non-ASCII character except the Unicode spaces, as class ranges (literal characters). */
const NON_ASCII_NON_SPACE =
  "\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e\u2030-\u205e\u2060-\u2fff\u3001-\ufefe\uff00-\uffff";

function propertyClass(escape: "p" | "P", property: string, inClass: boolean): string {
  const name = property.replace(/^(General_Category|gc)=/, "");
  let body = "\\s\\S";
  if (
    escape === "p" &&
    /^(L|Letter|Lu|Ll|Lt|Lm|Lo|[A-Z][a-z]*_Letter|Alphabetic|Alpha)$/.test(name)
  )
    body = `A-Za-z${NON_ASCII_NON_SPACE}`;
  else if (escape === "p" && /^(N|Nd|Number|Decimal_Number|digit)$/.test(name))
    body = `0-9${NON_ASCII_NON_SPACE}`;
  return inClass ? body : `[${body}]`;
}

const HEX = /^[0-9a-fA-F]+$/;
const QUANTIFIER_BRACES = /^\{\d+(,\d*)?\}/;

function literal(code: number, inClass: boolean): string {
  const char = String.fromCodePoint(code);
  if (/[\\^$.*+?()[\]{}|/-]/.test(char)) return `\\${char}`;
  if (code < 0x20 || code === 0x7f) return inClass ? "\\s\\S" : "[\\s\\S]";
  return char;
}

/** The `\u` escape starting at `at` (the backslash): [replacement, characters consumed]. */
function unicodeEscape(source: string, at: number, inClass: boolean): [string, number] {
  if (source[at + 2] === "{") {
    const close = source.indexOf("}", at + 3);
    const hex = close < 0 ? "" : source.slice(at + 3, close);
    if (HEX.test(hex) && hex.length <= 6) {
      const code = Number.parseInt(hex, 16);
      if (code <= 0x10ffff) return [literal(code, inClass), close - at + 1];
    }
  }
  const hex = source.slice(at + 2, at + 6);
  if (hex.length === 4 && HEX.test(hex)) return [literal(Number.parseInt(hex, 16), inClass), 6];
  return [source.slice(at, at + 2), 2];
}

export interface AnalysisSource {
  source: string;
  /** A named backreference `\k<name>` was found (backreferences are refused). */
  namedBackreference: boolean;
}

export function toAnalysisSource(source: string): AnalysisSource {
  let out = "";
  let inClass = false;
  let afterQuantifier = false;
  let namedBackreference = false;
  let i = 0;
  while (i < source.length) {
    const char = source[i] ?? "";
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      afterQuantifier = false;
      if ((next === "p" || next === "P") && source[i + 2] === "{") {
        const close = source.indexOf("}", i + 3);
        if (close > 0) {
          out += propertyClass(next, source.slice(i + 3, close), inClass);
          i = close + 1;
          continue;
        }
      }
      if (next === "u") {
        const [replacement, used] = unicodeEscape(source, i, inClass);
        out += replacement;
        i += used;
        continue;
      }
      if (next === "k" && source[i + 2] === "<" && !inClass) namedBackreference = true;
      out += char + next;
      i += 2;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      out += char;
      i += 1;
      continue;
    }
    if (char === "?" && afterQuantifier) {
      afterQuantifier = false;
      i += 1;
      continue;
    }
    if (char === "[") inClass = true;
    if (char === "(" && (source.startsWith("(?<=", i) || source.startsWith("(?<!", i))) {
      out += `(?${source[i + 3] ?? ""}`;
      i += 4;
      afterQuantifier = false;
      continue;
    }
    const braces = char === "{" ? QUANTIFIER_BRACES.exec(source.slice(i)) : null;
    if (braces !== null) {
      out += braces[0];
      i += braces[0].length;
      afterQuantifier = true;
      continue;
    }
    afterQuantifier = char === "*" || char === "+" || char === "?";
    out += char;
    i += 1;
  }
  return { source: out, namedBackreference };
}
