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

const keywordSets = new WeakMap<
  readonly string[],
  { phrases: Map<string, string>; longest: number }
>();

function keywordSet(keywords: readonly string[]): {
  phrases: Map<string, string>;
  longest: number;
} {
  let set = keywordSets.get(keywords);
  if (set === undefined) {
    const phrases = new Map<string, string>();
    let longest = 1;
    for (const keyword of keywords) {
      const phrase = normalise(keyword);
      phrases.set(phrase, keyword);
      longest = Math.max(longest, phrase.split(" ").length);
    }
    set = { phrases, longest };
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
  const { phrases, longest } = keywordSet(keywords);
  const words = textBefore(text, start, width).replaceAll("’", "'").match(WORDS) ?? [];
  for (let i = words.length - 1; i >= 0; i--) {
    let phrase = "";
    for (let n = 1; n <= longest && i - n + 1 >= 0; n++) {
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
