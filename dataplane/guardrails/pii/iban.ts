import type { PiiDetector, PiiMatch } from "./entities.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * IBANs: country code, two check digits, then the BBAN, compact or in groups of four separated by
 * single spaces, in upper or lower case. Valid when the length matches the country's and the
 * ISO 7064 mod-97 check gives 1.
 */

// Lengths per ISO 13616 registry (SWIFT IBAN registry).
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

// Country code and check digits, then up to 34 alphanumerics with optional single spaces. The
// optional space before each character leaves one way to match, so backtracking is bounded.
const CANDIDATE = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){8,32}/gu;

export function passesIbanChecksum(compact: string): boolean {
  const rearranged = (compact.slice(4) + compact.slice(0, 4)).toUpperCase();
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

export function findIbans(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  // The module's regex, restarted (nothing in the loop uses it elsewhere, and it ends at 0).
  const candidate = CANDIDATE;
  candidate.lastIndex = 0;
  for (let m = candidate.exec(text); m !== null; m = candidate.exec(text)) {
    const raw = m[0];
    candidate.lastIndex = m.index + 1;
    const expected = IBAN_LENGTHS[raw.slice(0, 2).toUpperCase()];
    if (expected === undefined) continue;
    // Take exactly `expected` alphanumerics; the value must end there (not glued to more).
    let count = 0;
    let cut = 0;
    while (cut < raw.length && count < expected) {
      if (raw[cut] !== " ") count++;
      cut++;
    }
    if (count !== expected) continue;
    const end = m.index + cut;
    if (WORD_CHAR.test(text[end] ?? "")) continue;
    const compact = raw.slice(0, cut).replaceAll(" ", "");
    const mixedCase = compact !== compact.toUpperCase() && compact !== compact.toLowerCase();
    if (mixedCase || !passesIbanChecksum(compact)) continue;
    matches.push({ entity_type: "IBAN_CODE", start: m.index, end, score: 0.95 });
    candidate.lastIndex = end;
  }
  return matches;
}

export const ibanDetector: PiiDetector = { entities: ["IBAN_CODE"], find: findIbans };
