/**
 * Reading regex sources, for the scan's shortcuts: where a pattern's matches can start. Each
 * reader answers only for the forms it understands and returns undefined otherwise, so a caller
 * falls back to running the regex as it is.
 */

/** Splits "a|b|(c|d)" at top-level bars. */
export function topLevelAlternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\") i++;
    else if (ch === "(" || ch === "[") depth++;
    else if (ch === ")" || ch === "]") depth--;
    else if (ch === "|" && depth === 0) {
      out.push(body.slice(from, i));
      from = i + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

/** Index of the parenthesis closing the group that opens at `open`. */
export function closingParen(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return -1;
}

/** Escapes that stand for one character: `\n`, `\t`, `\r` and escaped punctuation. */
const ESCAPED: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };

function escapedChar(ch: string | undefined): string | undefined {
  if (ch === undefined) return undefined;
  if (ESCAPED[ch] !== undefined) return ESCAPED[ch];
  return /[\\^$.|?*+()[\]{}/-]/.test(ch) ? ch : undefined;
}

/** A quantifier that lets the atom before it match nothing. */
function optionalAfter(source: string, at: number): boolean {
  const q = source[at];
  return q === "?" || q === "*" || (q === "{" && source[at + 1] === "0");
}

/** The characters of a plain class ("[.!?:\n]"); undefined for negation, ranges or escapes like \s. */
function classChars(body: string): string[] | undefined {
  if (body.startsWith("^")) return undefined;
  const chars: string[] = [];
  for (let i = 0; i < body.length; i++) {
    let ch: string | undefined = body[i];
    if (ch === "\\") ch = escapedChar(body[++i]);
    else if (ch === "-" && i > 0 && i < body.length - 1) return undefined;
    if (ch === undefined) return undefined;
    chars.push(ch);
  }
  return chars;
}

/** Adds the first characters of one alternative to `into`; false when they cannot be known. */
function leadingOf(alternative: string, into: Set<string>): boolean {
  const first = alternative[0];
  if (first === undefined) return false; // empty: matches anywhere
  if (first === "^") return true; // (no "m" flag) only at the text's start, tried separately
  if (first === "(") {
    if (!alternative.startsWith("(?:")) return false; // lookarounds, capturing groups
    const close = closingParen(alternative, 0);
    if (close < 0 || optionalAfter(alternative, close + 1)) return false;
    return topLevelAlternatives(alternative.slice(3, close)).every((a) => leadingOf(a, into));
  }
  let chars: string[] | undefined;
  let next: number;
  if (first === "[") {
    const close = alternative.indexOf("]", 1);
    if (close < 0 || alternative.slice(1, close).includes("[")) return false;
    chars = classChars(alternative.slice(1, close));
    next = close + 1;
  } else if (first === "\\") {
    const ch = escapedChar(alternative[1]);
    chars = ch === undefined ? undefined : [ch];
    next = 2;
  } else {
    chars = /[.$)|?*+{}\]]/.test(first) ? undefined : [first];
    next = 1;
  }
  if (chars === undefined || optionalAfter(alternative, next)) return false;
  for (const ch of chars) into.add(ch);
  return true;
}

/**
 * The characters a match of `regex` can start with, when the source says so plainly (a match may
 * also start at offset 0, through "^"); undefined when it cannot tell. Flags "i", "m" and "v"
 * change what a character, "^" or a class means, so with them it cannot tell either.
 */
export function leadingCharacters(regex: RegExp): Set<string> | undefined {
  if (/[imv]/.test(regex.flags)) return undefined;
  const chars = new Set<string>();
  return topLevelAlternatives(regex.source).every((a) => leadingOf(a, chars)) ? chars : undefined;
}
