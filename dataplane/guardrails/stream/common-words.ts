import { allLocales } from "@faker-js/faker";
import { NOT_NAME_WORDS } from "../pii/not-name-words.js";

/**
 * Ordinary English words (lower-cased): the English word lists @faker-js/faker ships (about 3,500
 * adjectives, adverbs, nouns, verbs, prepositions...) plus the capitalised words the person-name
 * detector never takes as names, plus short function words. Built once at import.
 *
 * The stream guard releases a trailing word at once when it is one of these, so prose flows without
 * delay; an unusual word may be an e-mail's local part or a name and is held until it is complete.
 */
const SHORT_WORDS =
  "a i am an as at be by do go he if in is it me my no of oh on or so to up us we ok ah " +
  "and are but can did for get got had has her him his how its let may not now one our out own " +
  "say see she the too two use was way who why yes yet you all any few off per via " +
  "also been both does done each even from have here into just like made make many more most " +
  "much must need only over said same some such than that them then they this very what when " +
  "will with would could should these those there their where which while about after again " +
  "being other every under until since shall might";

function collect(into: Set<string>): void {
  const words = allLocales.en?.word as Record<string, unknown> | undefined;
  for (const list of Object.values(words ?? {}))
    if (Array.isArray(list))
      for (const word of list) if (typeof word === "string") into.add(word.toLowerCase());
}

const COMMON = new Set<string>([...NOT_NAME_WORDS, ...SHORT_WORDS.split(" ")]);
collect(COMMON);

const SUFFIXES = ["s", "es", "ed", "d", "ing", "ly", "er", "est", "ies", "ied"];

/** Whether `word` (lower-case letters) is an ordinary word, or one with a common inflection. */
export function isCommonWord(word: string): boolean {
  if (COMMON.has(word)) return true;
  for (const suffix of SUFFIXES) {
    if (word.length - suffix.length < 3 || !word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    if (COMMON.has(stem) || COMMON.has(`${stem}e`) || COMMON.has(`${stem}y`)) return true;
  }
  return false;
}
