import { closestKeywordBefore } from "./context-words.js";
import { findDigitRuns, type DigitGroup } from "./digit-runs.js";
import type { PiiDetector, PiiMatch } from "./entities.js";
import { passesLuhn } from "./luhn.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const ONE_DIGIT_REPEATED = /^(\d)\1+$/;
const DECIMAL_AFTER = /^[.,]\d/;

/**
 * Payment card numbers (PAN): 12 to 19 digits, optionally grouped by single spaces or dashes,
 * that pass the Luhn check. A number whose prefix is a known issuer range (IIN) is a card on its
 * own; any other Luhn-valid number needs a card word shortly before it ("card", "cc", "visa").
 */

interface IssuerRange {
  from: number;
  to: number;
  prefixLength: number;
  lengths: readonly number[];
}

const range = (from: number, to: number, lengths: readonly number[]): IssuerRange => ({
  from,
  to,
  prefixLength: String(from).length,
  lengths,
});

const ISSUERS: readonly IssuerRange[] = [
  range(4, 4, [13, 16, 19]), // Visa
  range(51, 55, [16]), // Mastercard
  range(2221, 2720, [16]), // Mastercard 2-series
  range(34, 34, [15]), // American Express
  range(37, 37, [15]),
  range(300, 305, [14, 15, 16, 17, 18, 19]), // Diners Club
  range(36, 36, [14, 15, 16, 17, 18, 19]),
  range(38, 39, [14, 15, 16, 17, 18, 19]),
  range(6011, 6011, [16, 17, 18, 19]), // Discover
  range(644, 649, [16, 17, 18, 19]),
  range(65, 65, [16, 17, 18, 19]),
  range(3528, 3589, [16, 17, 18, 19]), // JCB
  range(2131, 2131, [15]),
  range(1800, 1800, [15]),
  range(62, 62, [16, 17, 18, 19]), // UnionPay
  range(2200, 2204, [16, 17, 18, 19]), // Mir
  range(50, 50, [12, 13, 14, 15, 16, 17, 18, 19]), // Maestro
  range(56, 69, [12, 13, 14, 15, 16, 17, 18, 19]),
];

function knownIssuer(digits: string): boolean {
  return ISSUERS.some((issuer) => {
    const prefix = Number(digits.slice(0, issuer.prefixLength));
    return prefix >= issuer.from && prefix <= issuer.to && issuer.lengths.includes(digits.length);
  });
}

const CARD_WORDS = [
  "card",
  "cards",
  "cc",
  "credit",
  "debit",
  "visa",
  "mastercard",
  "amex",
  "pan",
  "kreditkarte",
  "carte",
];

/** Grouping must be consistent: one separator kind, groups of 3 to 6 digits. */
function plausibleGrouping(groups: readonly DigitGroup[], separators: readonly string[]): boolean {
  if (groups.length === 1) return true;
  if (new Set(separators).size > 1) return false;
  return groups.every((group) => group.digits.length >= 3 && group.digits.length <= 6);
}

function cardAt(
  text: string,
  groups: readonly DigitGroup[],
  separators: readonly string[],
): PiiMatch | undefined {
  const first = groups[0];
  const last = groups[groups.length - 1];
  if (first === undefined || last === undefined) return undefined;
  const digits = groups.map((group) => group.digits).join("");
  if (digits.length < 12 || digits.length > 19 || ONE_DIGIT_REPEATED.test(digits)) return undefined;
  if (!plausibleGrouping(groups, separators) || !passesLuhn(digits)) return undefined;
  const context = closestKeywordBefore(text, first.start, 40, CARD_WORDS) !== undefined;
  const issuer = knownIssuer(digits);
  if (!issuer && !context) return undefined;
  const score = issuer && context ? 1 : issuer ? 0.9 : 0.8;
  return { entity_type: "CREDIT_CARD", start: first.start, end: last.end, score };
}

export function findPaymentCards(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  for (const run of findDigitRuns(text, " -", 12)) {
    // A number glued to a dot or comma and more digits is a decimal, not a card.
    if (DECIMAL_AFTER.test(text.slice(run.end, run.end + 2))) continue;
    const { groups } = run;
    let i = 0;
    while (i < groups.length) {
      let found: PiiMatch | undefined;
      let next = i + 1;
      let total = 0;
      for (let j = i; j < groups.length; j++) {
        const length = groups[j]?.digits.length ?? 0;
        total += length;
        if (total > 19) break;
        // Grouped numbers use groups of 3 to 6 digits (see plausibleGrouping).
        if (j > i && (length < 3 || length > 6 || (groups[i]?.digits.length ?? 0) < 3)) break;
        if (total < 12) continue;
        const card = cardAt(text, groups.slice(i, j + 1), run.separators.slice(i, j));
        if (card !== undefined) {
          found = card;
          next = j + 1;
        }
      }
      if (found !== undefined) matches.push(found);
      i = next;
    }
  }
  return matches;
}

export const paymentCardDetector: PiiDetector = {
  entities: ["CREDIT_CARD"],
  find: findPaymentCards,
};
