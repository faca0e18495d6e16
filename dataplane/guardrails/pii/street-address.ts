import type { PiiDetector, PiiMatch } from "./entities.js";
import { NOT_NAME_WORDS } from "./not-name-words.js";
import { isPlaceName } from "./place-names.js";
import { regexMatches } from "./regex-matches.js";
import { wordThenNumber } from "./word-then-number.js";
import { CORNER_OF } from "./word-cue-patterns.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const BREAKS_LINE_OR_LIST = /[,\n]/;
const ABBREVIATION_BEFORE = /(?:St|Ave|Rd|Blvd|Dr|Ln|Apt|Ste|u)\.$/u;
const STARTS_CAPITALISED = /^\p{Lu}/u;
const STATE_AND_NUMBER = /^\p{Lu}{2}\s+\d/u;
const THEN_LOWER_CASE_WORD = /^ \p{Ll}/u;
const HOUSE_NUMBER_BEFORE = /(?:^|[^\p{L}\p{N}])(\d{1,6}[ \t]+)$/u;
const DIGIT_RUN = /\d+/g;
const WHITESPACE = /\s/;
const TRAILING_WHITESPACE = /\s+$/;
const WHITESPACE_RUN = /\s+/;
const SPACE_OR_COMMA = /[\s,]/;
const WORD_AND_FULL_STOP_AT_END = /\p{L}{4,}\.$/u;

/**
 * Street addresses, heuristically. First "cores" that only an address has:
 * - a house number, up to four words and a street type: "1668 Glyn St", "14 Crown Street";
 * - a street type first, then words and a number: "Rua João Pessoa 1636", "ul. Miła 53";
 * - a word ending in a street type, then a number: "Søndergade 52", "Kiannonkatu 98";
 * - post boxes and military addresses: "P.O. Box 149", "PSC 0413, Box 8144", "APO AA 42323";
 * - units: "Suite 501", "Apt. 656".
 * Then each core grows over what follows it on the address (unit, city, state, ZIP, country,
 * separated by commas, spaces or line breaks) and over a house number before it; cores that touch
 * are merged into one address.
 */

const L = "\\p{L}\\p{M}";
const CAP_WORD = `\\p{Lu}[${L}'’.-]*`;
const STREET_TYPES =
  "street|st|avenue|ave|av|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|square|sq|terrace|" +
  "parkway|pkwy|highway|hwy|circle|cir|trail|trl|crescent|cres|close|row|route|rte|alley|plaza|walk|" +
  "freeway|expressway|turnpike|causeway|crossing|gardens|grove|heights|hill|mews|park|path|pike|ridge|" +
  "squares|streets|roads|avenues|lanes|drives|courts|ways|places|parks|coves|cove|creek|flats|forges|" +
  "manor|orchard|shoals|villages?|vista|str|straße|strasse|gasse|weg|allee|platz";
const STREET_PREFIXES =
  "rua|avenida|avda|av|calle|c/|carrer|via|viale|piazza|piazzetta|corso|largo|rue|avenue|boulevard|bd|" +
  "chemin|allée|place|impasse|ul|ulica|u|utca|út|aleja|al|str|strada|calea|odos|leoforos|λεωφόρος|οδός|plac";
const WORD_SUFFIXES =
  "gade|gata|gatan|vägen|vej|veien|vegen|gate|katu|tie|kuja|straße|strasse|str|gasse|weg|laan|straat|" +
  "plein|kade|gracht|dreef|utca|ulica|allee|stræti|stræde|gata|braut|vegur|stig|tún|sgatan|torget|torg";

const NUMBER = "\\d{1,6}[A-Za-z]?";
const CORE_PATTERNS: readonly RegExp[] = [
  new RegExp(
    `(?<![\\p{L}\\p{N}])${NUMBER}(?:[ ,]{1,2}${NUMBER})?\\s+(?:${CAP_WORD}\\s+){0,4}(?:${STREET_TYPES})\\.?(?![\\p{L}\\p{N}])`,
    "giu",
  ),
  new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${STREET_PREFIXES})\\.?\\s+(?:[${L}'’.-]+\\s+){0,4}${NUMBER}\\.?(?![\\p{L}\\p{N}])`,
    "giu",
  ),
  /(?<![\p{L}\p{N}])(?:P\.?\s?O\.?\s?Box|PO\s?Box|Post(?:fach|box)|Apartado|Caixa\s+Postal)\s+\d{1,6}(?![\p{L}\p{N}])/giu,
  /(?<![\p{L}\p{N}])(?:PSC|Unit|CMR)\s+\d{1,5},?\s+Box\s+\d{1,5}(?![\p{L}\p{N}])/gu,
  /(?<![\p{L}\p{N}])(?:USNS|USNV|USS|USCGC)\s+\p{Lu}[\p{L}\p{M}-]+/gu,
  /(?<![\p{L}\p{N}])[AFD]PO\s+A[AEP]\s+\d{5}(?![\p{L}\p{N}])/gu,
  /(?<![\p{L}\p{N}])(?:Suite|Ste\.?|Apt\.?|Apartment|Unit|Flat|Floor|Fl\.?)\s+#?\d{1,5}[A-Za-z]?(?![\p{L}\p{N}])/giu,
  CORNER_OF,
];

const STREET_WORD_ENDING = new RegExp(`(?:${WORD_SUFFIXES})$`, "u");
const PRECEDING_CAP_WORDS = new RegExp(`(?:${CAP_WORD}\\s+){1,2}$`, "u");

// House number, one to three capitalised words, a number: "20789 Allika 46", "641 Dašická 688".
const NUMBER_WORDS_NUMBER = new RegExp(
  `(?<![\\p{L}\\p{N}.,])\\d{1,6}\\s+((?:${CAP_WORD}\\s+){1,3})\\d{1,5}[A-Za-z]?(?![\\p{L}\\p{N}]|[.,]\\d)`,
  "gu",
);

// What may follow a core on the same address, after a separator of commas, spaces or line breaks.
const SEPARATOR = /^[ \t]*(?:,[ \t]*)?(?:\n[ \t]*){0,2}(?:,[ \t]*)?/u;
const CONTINUATIONS: readonly RegExp[] = [
  /^(?:Suite|Ste\.?|Apt\.?|Apartment|Unit|Flat|Floor|Fl\.?)\s+#?\d{1,5}[A-Za-z]?(?![\p{L}\p{N}])/iu,
  /^[AFD]PO\s+A[AEP]\s+\d{5}(?![\p{L}\p{N}])/u,
  /^\d{4,6}(?:-\d{4})?(?![\p{L}\p{N}])/u, // ZIP / postcode
  /^\p{Lu}{2}\s+\d{5}(?:-\d{4})?(?![\p{L}\p{N}])/u, // "CO 70079"
  /^\p{Lu}{2}(?![\p{L}\p{N}])/u, // state code
  /^\p{Lu}[\p{L}\p{M}'’.-]*(?: (?:\p{Lu}[\p{L}\p{M}'’.-]*|de|del|da|do|dos|am|an|der|sur|upon|on)){0,3}(?![\p{L}\p{N}])/u, // city, country
];
const STOP_WORDS =
  /^(?:I|Mobile|Phone|Tel|Fax|Desk|Email|E-mail|Website|Name|Address|The|This|For|And|But)\b/u;

function extend(text: string, end: number): number {
  let at = end;
  for (let steps = 0; steps < 8; steps++) {
    const sep = SEPARATOR.exec(text.slice(at))?.[0] ?? "";
    if (sep.length === 0 && at !== end) break;
    // "... Main St. However": a full stop followed by a plain space ends the sentence.
    if (
      text[at - 1] === "." &&
      !BREAKS_LINE_OR_LIST.test(sep) &&
      !ABBREVIATION_BEFORE.test(text.slice(at - 5, at))
    )
      break;
    const rest = text.slice(at + sep.length, at + sep.length + 80);
    if (STOP_WORDS.test(rest)) break;
    const next = CONTINUATIONS.map((c) => c.exec(rest)?.[0]).find(
      (m) => m !== undefined && m.length > 0,
    );
    if (next === undefined) break;
    // A city or country must be followed by the end, a separator, a ZIP or punctuation, not prose.
    const after = text.slice(at + sep.length + next.length, at + sep.length + next.length + 3);
    if (
      STARTS_CAPITALISED.test(next) &&
      !STATE_AND_NUMBER.test(next) &&
      THEN_LOWER_CASE_WORD.test(after) &&
      !isPlaceName(next)
    )
      break;
    at += sep.length + next.length;
  }
  return at;
}

function extendBackwards(text: string, start: number): number {
  const before = HOUSE_NUMBER_BEFORE.exec(text.slice(Math.max(0, start - 10), start));
  return before?.[1] === undefined ? start : start - before[1].length;
}

const ADDRESS_CUE = /(?:^|\n|,|\b(?:at|to|address|is|from)\s*:?)\s*$/iu;

/** WHITESPACE.test(text[i]) for i inside the text, without a regex call for ASCII. */
function isWhitespaceAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return WHITESPACE.test(text[i]!);
}

/**
 * Every core holds a digit (ship names and "the corner of" aside, which sit next to ZIPs and
 * numbers in practice), so the patterns run only on windows around digit runs: prose without
 * numbers costs one scan for digits.
 */
function digitWindows(text: string): Array<{ start: number; end: number }> {
  const windows: Array<{ start: number; end: number }> = [];
  for (const m of regexMatches(DIGIT_RUN, text)) {
    // Widen to whitespace, but by at most 32 characters: a text without spaces stays linear.
    let start = Math.max(0, m.index - 100);
    const startLimit = Math.max(0, start - 32);
    while (start > startLimit && !isWhitespaceAt(text, start - 1)) start--;
    let end = Math.min(text.length, m.index + m[0].length + 40);
    const endLimit = Math.min(text.length, end + 32);
    while (end < endLimit && !isWhitespaceAt(text, end)) end++;
    const last = windows.at(-1);
    if (last !== undefined && start <= last.end) last.end = Math.max(last.end, end);
    else windows.push({ start, end });
  }
  return windows;
}

function findCores(
  text: string,
  offset: number,
  into: Array<{ start: number; end: number }>,
): void {
  for (const pattern of CORE_PATTERNS) {
    for (const m of regexMatches(pattern, text)) {
      into.push({
        start: offset + m.index,
        end: offset + m.index + m[0].replace(TRAILING_WHITESPACE, "").length,
      });
    }
  }
  // A word and a number ("Søndergade 52"); the word is then checked for a street-type ending.
  for (const m of wordThenNumber(text)) {
    if (!STREET_WORD_ENDING.test(m.word)) continue;
    // Take up to two capitalised words before it: "Brucker Bundesstrasse 31".
    const before =
      PRECEDING_CAP_WORDS.exec(text.slice(Math.max(0, m.index - 40), m.index))?.[0] ?? "";
    into.push({ start: offset + m.index - before.length, end: offset + m.index + m.match.length });
  }
  for (const m of regexMatches(NUMBER_WORDS_NUMBER, text)) {
    const words = (m[1] ?? "").trim().split(WHITESPACE_RUN);
    if (words.some((w) => NOT_NAME_WORDS.has(w.toLowerCase()) || isPlaceName(w))) continue;
    // "number Word number" is an address only after an address cue or with more address after it.
    const cued = ADDRESS_CUE.test(text.slice(Math.max(0, m.index - 16), m.index));
    const end = m.index + m[0].length;
    if (!cued && extend(text, end) === end) continue;
    into.push({ start: offset + m.index, end: offset + end });
  }
}

export function findStreetAddresses(text: string): PiiMatch[] {
  const cores: Array<{ start: number; end: number }> = [];
  for (const window of digitWindows(text))
    findCores(text.slice(window.start, window.end), window.start, cores);
  cores.sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const core of cores) {
    const start = extendBackwards(text, core.start);
    const end = extend(text, core.end);
    const last = merged.at(-1);
    if (last !== undefined && start <= last.end + 1) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged.map(({ start, end }) => {
    let e = end;
    while (e > start && SPACE_OR_COMMA.test(text[e - 1] ?? "")) e--;
    // "..., London." ends a sentence; "u. 12." and "St." keep their dot.
    if (WORD_AND_FULL_STOP_AT_END.test(text.slice(start, e))) e--;
    return { entity_type: "STREET_ADDRESS", start, end: e, score: 0.75 };
  });
}

export const streetAddressDetector: PiiDetector = {
  entities: ["STREET_ADDRESS"],
  find: findStreetAddresses,
};
