import { fakerWordLists } from "../pii/faker-word-lists.js";
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
  "being other every under until since shall might " +
  // Numbers, seasons and common words that are also first names somewhere.
  "zero one two three four five six seven eight nine ten eleven twelve twenty hundred thousand " +
  "million billion spring summer autumn fall winter mark marks rose grant bill art faith river " +
  "stone dawn ray chase lane hope joy page sky star may june august will " +
  // Short words the lists lack (irregular forms, spellings).
  "met led fed ran sat saw won lit hid bit dug fit hit let set put cut got new old big bad red " +
  "hot wet dry few lot low raw shy sly top due end age aid aim air arm ask bag bar bed bus car " +
  "cat cup day dog ear eat egg eye fan far fat fee fix fly fun gap gas guy hat her ice ink job " +
  "key kid law lay leg lie lip log man map mix mud net nor nut oil pan pay pen pet pie pin pot " +
  "pub rat rod row run sea sir son sum sun tax tea tie tip toe ton toy try two use van war way " +
  "web win yet zoo grey gray ago via etc everyone everything everybody someone something " +
  "somebody anyone anything anybody nobody nothing nowhere somewhere everywhere anywhere " +
  "however therefore meanwhile instead perhaps yesterday tonight later sometimes often always " +
  "never usually already almost enough either neither whether though although unless";

/** English first names (as e-mail local parts are written: "mary", "john"), lower-cased. */
const EN_FIRST = new Set<string>(
  fakerWordLists.englishFirstNames.map((name) => name.toLowerCase()),
);

const SORTED_FIRST = [...EN_FIRST].sort();

/**
 * Whether a lower-case word is an English first name that is not also an ordinary word, or (up to
 * three letters) may be the beginning of one ("mar" of "mary").
 */
export function mayBeEnglishFirstName(word: string): boolean {
  if (isCommonWord(word)) return false;
  if (word.length > 3) return EN_FIRST.has(word);
  let lo = 0;
  let hi = SORTED_FIRST.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((SORTED_FIRST[mid] as string) < word) lo = mid + 1;
    else hi = mid;
  }
  return SORTED_FIRST[lo]?.startsWith(word) === true;
}

const COMMON = new Set<string>([...NOT_NAME_WORDS, ...SHORT_WORDS.split(" ")]);
for (const word of fakerWordLists.englishWords) COMMON.add(word.toLowerCase());

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
