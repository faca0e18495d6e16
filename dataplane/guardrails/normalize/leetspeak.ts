/**
 * Leetspeak folding ("1gn0r3 4ll" -> "ignore all") and joining of letter-by-letter spelling
 * ("i g n o r e", "i.g.n.o.r.e" -> "ignore"). Both work on folded (lower-case) text.
 */
import type { FoldedText } from "./fold-characters.js";

const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l",
  "€": "e",
  "+": "t",
};

/** LEET as a table by char code (0 = not a leet character). */
const LEET_CODES = new Uint16Array(0x2100);
for (const [from, to] of Object.entries(LEET)) LEET_CODES[from.charCodeAt(0)] = to.charCodeAt(0);

/** Any character of LEET (each one UTF-16 code unit). */
const LEET_CHAR = new RegExp(
  `[${Object.keys(LEET)
    .map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .join("")}]`,
  "g",
);

function leetCode(c: number): number {
  return c < LEET_CODES.length ? LEET_CODES[c]! : 0;
}

/** Whether leetspeak folding may replace this char code (a digit or one of @$!|€+). */
export function isLeetCode(c: number): boolean {
  return leetCode(c) !== 0;
}

function isLetterCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 0xe0 && c <= 0x24f);
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Replace leet characters that sit inside a word, so "1gn0r3" and "pr3v10u5" fold while "2022",
 * "1+1" and "hello!" stay as they are: a run of digits folds when it touches a letter; a run with
 * symbols ($, @, !, |, +, €) folds only between letters (or "$"/"@" opening a word). Length-preserving,
 * so the folded text's origin map still applies. Returns `text` itself when nothing changed.
 */
export function foldLeetspeak(text: string): string {
  return foldLeetspeakRuns(text, undefined);
}

/**
 * `foldLeetspeak`, also pushing the [start, end) of every run it replaced onto `runs` (each of its
 * characters changed: no leet character maps to itself).
 */
export function foldLeetspeakRuns(text: string, runs: [number, number][] | undefined): string {
  let out = "";
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    // The next leet character, found by the regex engine (several times faster than a loop here).
    LEET_CHAR.lastIndex = i;
    if (!LEET_CHAR.test(text)) break;
    i = LEET_CHAR.lastIndex - 1;
    let j = i;
    let digitsOnly = true;
    while (j < n && leetCode(text.charCodeAt(j)) !== 0) {
      if (!isDigitCode(text.charCodeAt(j))) digitsOnly = false;
      j++;
    }
    const before = i > 0 && isLetterCode(text.charCodeAt(i - 1));
    const after = j < n && isLetterCode(text.charCodeAt(j));
    const opensWord = (text[i] === "$" || text[i] === "@") && after && !before;
    if (digitsOnly ? before || after : (before && after) || opensWord) {
      out += text.slice(copied, i);
      for (let k = i; k < j; k++) out += String.fromCharCode(leetCode(text.charCodeAt(k)));
      copied = j;
      runs?.push([i, j]);
    }
    i = j;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isSpellSeparator(c: number): boolean {
  return c === 32 || c === 46 || c === 45 || c === 95 || c === 42 || c === 0xb7;
}

/** 1 at the char codes of the spelling separators (isSpellSeparator), by char code. */
const SPELL_SEPARATORS = new Uint8Array(0xb8);
for (const c of [32, 46, 45, 95, 42, 0xb7]) SPELL_SEPARATORS[c] = 1;

/**
 * What every run holds: four letters joined by separators, the last a one-letter word
 * (isLetterCode, isSpellSeparator, then no isWordCode character). Text without it has no run, and
 * the regex engine tells so in about half the time of the loop below (one-letter words such as
 * "a" are common, so a shorter test would let most text through).
 */
const MAY_BE_SPELLED_OUT =
  /[a-z\u00e0-\u024f][ .\-_*\u00b7][a-z\u00e0-\u024f][ .\-_*\u00b7][a-z\u00e0-\u024f][ .\-_*\u00b7][a-z\u00e0-\u024f](?![a-z0-9\u00e0-\uffff])/;

/**
 * Runs of 4+ single letters separated by one separator (" ", ".", "-", "_", "*", "·"), as
 * [start, end) spans, found in one linear pass. A run starts at a letter that starts a word and is
 * followed by a separator and another one-letter word, so only such places are tried: the
 * separators are found with one table look-up per character, and the runs are the same as trying
 * every word start in turn (a run's own letters are skipped by starting after its end).
 */
function spelledOutRuns(text: string): [number, number][] {
  const runs: [number, number][] = [];
  if (!MAY_BE_SPELLED_OUT.test(text)) return runs;
  const n = text.length;
  let after = 0;
  for (let s = 1; s + 1 < n; s++) {
    const c = text.charCodeAt(s);
    if (c >= 0xb8 || SPELL_SEPARATORS[c] === 0) continue;
    const i = s - 1;
    if (i < after || !isLetterCode(text.charCodeAt(i))) continue;
    if (i > 0 && isWordCode(text.charCodeAt(i - 1))) continue;
    let j = i + 1;
    let letters = 1;
    while (
      j + 1 < n &&
      isSpellSeparator(text.charCodeAt(j)) &&
      isLetterCode(text.charCodeAt(j + 1)) &&
      (j + 2 >= n || !isWordCode(text.charCodeAt(j + 2)))
    ) {
      j += 2;
      letters++;
    }
    if (letters >= 4 && (j >= n || !isWordCode(text.charCodeAt(j)))) {
      runs.push([i, j]);
      after = j;
      s = j;
    }
  }
  return runs;
}

/** Exposed for tests: the runs joinSpelledOut joins. */
export { spelledOutRuns, isLetterCode, isSpellSeparator, isWordCode };

function isWordCode(c: number): boolean {
  return isLetterCode(c) || isDigitCode(c) || c >= 0x250;
}

/**
 * Join words spelled letter by letter. Returns a new folded text (with a composed origin map) or
 * undefined when nothing was spelled out.
 */
export function joinSpelledOut(folded: FoldedText): FoldedText | undefined {
  const { text } = folded;
  const runs = spelledOutRuns(text);
  if (runs.length === 0) return undefined;
  let out = "";
  const origin: number[] = [];
  let last = 0;
  for (const [start, end] of runs) {
    for (let k = last; k < start; k++) {
      out += text[k];
      origin.push(folded.origin[k]!);
    }
    for (let k = start; k < end; k += 2) {
      out += text[k];
      origin.push(folded.origin[k]!);
    }
    last = end;
  }
  for (let k = last; k < text.length; k++) {
    out += text[k];
    origin.push(folded.origin[k]!);
  }
  origin.push(folded.inputLength);
  return { text: out, origin: Int32Array.from(origin), inputLength: folded.inputLength };
}
