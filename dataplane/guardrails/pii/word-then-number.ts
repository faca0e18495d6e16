/**
 * "A word and a number" for the street-address detector ("Søndergade 52"): the matches of
 * WORD_NUMBER, found on ASCII text without running it. The regex tries every word of the text and
 * fails on almost all of them; on ASCII text a match can only be a run of letters, white space and
 * a digit run of at most six digits (and one optional letter) that no letter or digit follows, so
 * the digit runs after white space are enough to find them all. Text with other characters (marks,
 * non-ASCII letters, digits and spaces, surrogate pairs) runs the regex.
 */
import { regexMatches } from "./regex-matches.js";

const NUMBER = "\\d{1,6}[A-Za-z]?";

/** The word is matched greedily up to the space, so there is nothing to backtrack over. */
export const WORD_NUMBER = new RegExp(
  `(?<![\\p{L}\\p{N}])(\\p{L}[\\p{L}\\p{M}]*)\\s+${NUMBER}(?![\\p{L}\\p{N}])`,
  "gu",
);

export interface WordThenNumber {
  /** Where the match starts: the word's first letter. */
  index: number;
  /** The word (the regex's first group). */
  word: string;
  /** The whole match. */
  match: string;
}

/** Outside tab..tilde (all ASCII white space, digits and letters): the regex decides. */
const NOT_ASCII = /[^\t-~]/;
/** An ASCII white-space character and a digit: where a number can follow a word. */
const SPACE_THEN_DIGIT = /[\t-\r ][0-9]/g;

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** \s on ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** The matches of WORD_NUMBER in `text`, in order, as regexMatches finds them. */
export function wordThenNumber(text: string): WordThenNumber[] {
  if (NOT_ASCII.test(text))
    return regexMatches(WORD_NUMBER, text).map((m) => ({
      index: m.index,
      word: m[1] ?? "",
      match: m[0],
    }));
  const found: WordThenNumber[] = [];
  const n = text.length;
  let lastEnd = 0;
  SPACE_THEN_DIGIT.lastIndex = 0;
  while (SPACE_THEN_DIGIT.test(text)) {
    const d = SPACE_THEN_DIGIT.lastIndex - 1;
    // White space, then the word before it: letters only (ASCII has no marks).
    let r = d - 1;
    while (r > 0 && isAsciiSpace(text.charCodeAt(r - 1))) r--;
    let q = r;
    while (q > 0 && isAsciiLetter(text.charCodeAt(q - 1))) q--;
    // A word, starting where the regex can start it (no digit before), after the last match.
    if (q === r || q < lastEnd || (q > 0 && isAsciiDigit(text.charCodeAt(q - 1)))) continue;
    let end = d;
    while (end < n && isAsciiDigit(text.charCodeAt(end))) end++;
    if (end - d > 6) continue; // a seventh digit follows any six
    if (end < n && isAsciiLetter(text.charCodeAt(end))) end++; // the optional letter
    if (end < n && (isAsciiLetter(text.charCodeAt(end)) || isAsciiDigit(text.charCodeAt(end))))
      continue;
    found.push({ index: q, word: text.slice(q, r), match: text.slice(q, end) });
    lastEnd = end;
  }
  return found;
}
