import { closestKeywordBefore } from "./context-words.js";
import type { PiiDetector, PiiMatch } from "./entities.js";
import { regexMatches } from "./regex-matches.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const NON_DIGITS = /\D/g;
const DECIMAL = /^\d+\.\d+$/;
const TRAILING_SEPARATORS = /[ .-]+$/;

/**
 * Phone numbers. Candidates are runs of digit groups joined by a single space, dot or dash, with
 * an optional leading "+" or "00", parenthesised area codes ("(08) 8747 6301", "+41 (0)96 471 07
 * 95") and an optional extension ("x123", "ext. 45"). A candidate is a phone number when:
 * - it is international ("+", "(+44)" or "00" and 8-15 digits), or a North American number in a
 *   standard layout ("(555) 123-4567", "555-123-4567", "555.123.4567", optional 1/001 prefix), or
 *   a national number in a grouped layout: a parenthesised area code ("(02) 9876 5432", "(030)
 *   12345678") or a trunk "0" and three or more groups with one kind of separator ("020 7946
 *   0958", "0490 75 40 81", "03.93.92.16.85"); or
 * - it has 7-15 digits and a phone word ("phone", "call", "mobile", "fax"...) precedes it, with no
 *   closer word naming another kind of number ("card", "order", "license", "zip"...).
 * Dates, times, IPs and decimals are rejected by shape.
 */

// Single linear pattern: every repeated unit starts with a separator or "(", so there is exactly
// one way to split a run; all repetition counts are bounded.
const CANDIDATE =
  /(?<![\p{L}\p{N}_+.\-/])(?<!(?<!tel):)(?:\+ ?|00|\(\+\d{1,3}\) ?)?(?:\(\d{1,4}\) ?)?\d{1,12}(?:(?:[ .-]|[ .-]?\(\d{1,4}\) ?)\d{1,12}){0,7}(?: ?(?:x|ext\.?|extension|#) ?\d{1,6})?(?![\p{L}\p{N}_]|[.\-/:]\d)/giu;

const PHONE_WORDS = [
  "phone",
  "telephone",
  "tel",
  "tel.",
  "mobile",
  "mob",
  "cell",
  "fax",
  "desk",
  "call",
  "calling",
  "calls",
  "called",
  "phoned",
  "texts",
  "ring",
  "dial",
  "text",
  "sms",
  "whatsapp",
  "signal",
  "contact",
  "reach",
  "answering",
  "voicemail",
  "message",
  "messages",
  "registered",
  "hotline",
  "landline",
  "telefon",
  "téléphone",
  "telefono",
  "teléfono",
  "handy",
  "mobil",
];

const OTHER_NUMBER_WORDS = [
  "card",
  "cc",
  "iban",
  "account",
  "acct",
  "license",
  "licence",
  "passport",
  "ssn",
  "social security",
  "order",
  "invoice",
  "tracking",
  "zip",
  "postal",
  "postcode",
  "box",
  "suite",
  "apt",
  "unit",
  "room",
  "serial",
  "version",
  "isbn",
  "id",
  "ref",
  "reference",
  "born",
  "date",
];

const ALL_NUMBER_WORDS = [...PHONE_WORDS, ...OTHER_NUMBER_WORDS];

const NANP = /^(?:(?:\+?1|001)[ .-]?)?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}$/;
const NANP_COMPACT = /^(?:\+?1)?[2-9]\d{2}[2-9]\d{6}$/;
const DATE_LIKE =
  /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./](?:\d{2}|\d{4}))$|^\d{1,2}[.:]\d{2}$/;
const IPV4_LIKE = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** "00" then a country code: the international prefix dialled from most of the world. */
const INTERNATIONAL_00 = /^00[1-9]\d{0,2}[ .-]/;
/** A parenthesised area code first, then at least one more group. */
const AREA_CODE_FIRST = /^\(0?\d{1,4}\) ?\d{2,}(?:[ .-]\d{2,})*$/;
/** Trunk 0, then groups of 2-5 digits, all joined by the same separator (3+ groups). */
const NATIONAL_GROUPED = /^0\d{1,4}(?:( )\d{2,5}|(\.)\d{2,5}|(-)\d{2,5})(?:\1\2\3\d{2,5})+$/;
const EXTENSION = / ?(?:x|ext\.?|extension|#) ?\d{1,6}$/i;

function classify(text: string, start: number, raw: string): number {
  const main = raw.replace(EXTENSION, "");
  const digits = main.replace(NON_DIGITS, "");
  if (DATE_LIKE.test(main) || DECIMAL.test(main) || IPV4_LIKE.test(main)) return 0;
  if (digits.length < 7 || digits.length > 15) return 0;
  const keyword = closestKeywordBefore(text, start, 40, ALL_NUMBER_WORDS);
  const phoneContext = keyword !== undefined && PHONE_WORDS.includes(keyword);
  const otherContext = keyword !== undefined && !phoneContext;
  if (otherContext) return 0;
  const international =
    main.startsWith("+") || main.startsWith("(+") || INTERNATIONAL_00.test(main);
  if (international && digits.length >= 8) return phoneContext ? 0.95 : 0.85;
  if (NANP.test(main)) return phoneContext ? 0.95 : 0.8;
  const national = digits.length >= 9 && digits.length <= 11;
  if (national && (AREA_CODE_FIRST.test(main) || NATIONAL_GROUPED.test(main)))
    return phoneContext ? 0.9 : 0.75;
  if (phoneContext && NANP_COMPACT.test(main)) return 0.85;
  if (phoneContext) return 0.7;
  return 0;
}

export function findPhoneNumbers(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  for (const m of regexMatches(CANDIDATE, text)) {
    let raw = m[0];
    // The last group may be a sentence's trailing number glued by a space: keep the layout honest.
    raw = raw.replace(TRAILING_SEPARATORS, "");
    const score = classify(text, m.index, raw);
    if (score > 0)
      matches.push({
        entity_type: "PHONE_NUMBER",
        start: m.index,
        end: m.index + raw.length,
        score,
      });
  }
  return matches;
}

export const phoneDetector: PiiDetector = { entities: ["PHONE_NUMBER"], find: findPhoneNumbers };
