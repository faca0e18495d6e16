/**
 * Context words: many values (a 7-digit phone number, a 9-digit SSN without dashes) are only PII
 * when the words before them say so. These helpers look at a short window before a match.
 */

const WORD = /[\p{L}\p{N}]/u;

/** The lowercased text of up to `width` code units before `start`. */
export function textBefore(text: string, start: number, width: number): string {
  return text.slice(Math.max(0, start - width), start).toLowerCase();
}

const WORDS = /[\p{L}\p{N}'’#]+/gu;
const normalise = (phrase: string): string =>
  phrase
    .toLowerCase()
    .replace(/’/g, "'")
    .replace(/[.:]+$/u, "")
    .replace(/\s+/g, " ");

interface KeywordSet {
  phrases: Map<string, string>;
  longest: number;
  /** The last words of the phrases of several words: only those can end such a phrase. */
  phraseEnds: Set<string>;
}

const keywordSets = new WeakMap<readonly string[], KeywordSet>();

function keywordSet(keywords: readonly string[]): KeywordSet {
  let set = keywordSets.get(keywords);
  if (set === undefined) {
    const phrases = new Map<string, string>();
    const phraseEnds = new Set<string>();
    let longest = 1;
    for (const keyword of keywords) {
      const phrase = normalise(keyword);
      phrases.set(phrase, keyword);
      const words = phrase.split(" ");
      longest = Math.max(longest, words.length);
      if (words.length > 1) phraseEnds.add(words.at(-1)!);
    }
    set = { phrases, longest, phraseEnds };
    keywordSets.set(keywords, set);
  }
  return set;
}

/**
 * Which keyword (a word or a phrase of a few words) of `keywords` occurs closest before `start`,
 * within `width` code units, matched on whole words, case-insensitively. Undefined when none does.
 * Cost: one pass over the words of the window, whatever the number of keywords.
 */
export function closestKeywordBefore(
  text: string,
  start: number,
  width: number,
  keywords: readonly string[],
): string | undefined {
  const { phrases, longest, phraseEnds } = keywordSet(keywords);
  const window = textBefore(text, start, width);
  const words = (window.includes("’") ? window.replaceAll("’", "'") : window).match(WORDS) ?? [];
  for (let i = words.length - 1; i >= 0; i--) {
    let phrase = "";
    // Phrases of several words are built only from a word that ends one.
    const most = phraseEnds.has(words[i] ?? "") ? longest : 1;
    for (let n = 1; n <= most && i - n + 1 >= 0; n++) {
      phrase = n === 1 ? (words[i] ?? "") : `${words[i - n + 1] ?? ""} ${phrase}`;
      const keyword = phrases.get(phrase);
      if (keyword !== undefined) return keyword;
    }
  }
  return undefined;
}

export function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}
