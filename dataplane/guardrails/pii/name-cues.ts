/**
 * The words right before a capitalised word that make it a person's name, or more likely one:
 * strong cues ("my name is", "Dr."), person cues ("said", "met") and weak ones ("with", "to").
 * Used by person-name.ts.
 */

const TITLES = new Set(
  "mr mrs ms miss mx dr prof sir madam madame mme herr frau sra dott mlle".split(" "),
);
/** Cues of one or two words right before a name: "name is", "i'm", "named". */
const STRONG_CUES = new Set([
  "name is",
  "name was",
  "name:",
  "name -",
  "name?",
  "i'm",
  "im",
  "i am",
  "this is",
  "call me",
  "calls me",
  "named",
  "called",
  "signed",
  "regards",
  "sincerely",
  "name's",
]);
/** Words that precede people more than things: enough for a name the lexicon does not know. */
const PERSON_CUES = new Set(
  (
    "by asked told said met meet dear hi hello hey thanks ask speak spoke assistant manager partner wife " +
    "husband son daughter mother father brother sister friend colleague founder founders heard tell early me"
  ).split(" "),
);
/** Words that precede anything: enough only together with the lexicon. */
const WEAK_CUES = new Set([
  "with",
  "to",
  "from",
  "under",
  "for",
  "and",
  "or",
  "saw",
  ...PERSON_CUES,
]);
/**
 * The leading lookbehind changes no match (a match starting right after a letter or apostrophe
 * could start one character earlier, so it is never the leftmost), but spares the engine an attempt
 * in the middle of every word.
 */
const PREVIOUS_WORDS =
  /(?<![\p{L}'])([\p{L}']+[:?,.-]?|[:?-])(?:\s+([\p{L}']+[:?,.-]?|[:?-]))?\s+$/u;

export interface Cues {
  strong: boolean;
  person: boolean;
  weak: boolean;
}

/** PREVIOUS_WORDS, global so that a search can start at `lastIndex`. */
const PREVIOUS_WORDS_FROM = new RegExp(PREVIOUS_WORDS.source, "gu");

const SPACE = /\s/;

/** Whether a code unit is white space as \s sees it (none is outside the BMP). */
function isSpace(c: number): boolean {
  return c < 128 ? c === 32 || (c >= 9 && c <= 13) : SPACE.test(String.fromCharCode(c));
}

/**
 * Where PREVIOUS_WORDS can first match in `before`: its words hold no white space, so a match
 * lies in the last two runs of other characters and the white space after them.
 */
function previousWordsFrom(before: string): number {
  let k = before.length;
  for (let run = 0; run < 2; run++) {
    while (k > 0 && isSpace(before.charCodeAt(k - 1))) k--;
    while (k > 0 && !isSpace(before.charCodeAt(k - 1))) k--;
  }
  return k;
}

/** PREVIOUS_WORDS.exec(before), without trying the positions before previousWordsFrom. */
function previousWords(before: string): RegExpExecArray | null {
  PREVIOUS_WORDS_FROM.lastIndex = previousWordsFrom(before);
  return PREVIOUS_WORDS_FROM.exec(before);
}

/** `word` without one trailing ":", "?", ",", "." or "-" (what `replace(/[:?,.-]$/, "")` does). */
function withoutTrailingCuePunctuation(word: string): string {
  const c = word.charCodeAt(word.length - 1);
  return c === 58 || c === 63 || c === 44 || c === 46 || c === 45 ? word.slice(0, -1) : word;
}

/** Looks at the one or two words before `start` (lower-cased, punctuation kept for "name:"). */
export function cuesBefore(text: string, start: number): Cues {
  const window = text.slice(Math.max(0, start - 24), start).toLowerCase();
  const before = window.includes("’") ? window.replaceAll("’", "'") : window;
  const m = previousWords(before);
  if (m === null) return { strong: false, person: false, weak: false };
  // Index access, not array destructuring (which goes through the iterator protocol).
  const a = m[1] ?? "";
  const b = m[2];
  const last = b ?? a;
  const pair = b === undefined ? last : `${a} ${b}`;
  const bare = withoutTrailingCuePunctuation(last);
  const strong =
    STRONG_CUES.has(pair) ||
    STRONG_CUES.has(last) ||
    // Without a trailing comma the pair was looked up just above.
    (pair.endsWith(",") && STRONG_CUES.has(pair.slice(0, -1))) ||
    TITLES.has(bare) ||
    (b !== undefined && a.endsWith("'s") && bare === "name");
  return { strong, person: PERSON_CUES.has(bare), weak: WEAK_CUES.has(bare) };
}

/** Exposed for tests. */
export { PREVIOUS_WORDS, previousWords, withoutTrailingCuePunctuation };
