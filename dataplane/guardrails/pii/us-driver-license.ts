import { closestKeywordBefore } from "./context-words.js";
import type { PiiDetector, PiiMatch } from "./entities.js";
import { regexMatches } from "./regex-matches.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const NON_DIGITS = /\D/g;

/**
 * US driver's license numbers. Formats differ by state (7-9 digits, a letter and 4-14 digits,
 * "1234-56-7890"...) and overlap with every other number, so a candidate counts only when a
 * license word closely precedes it.
 */

const CANDIDATE = /(?<![\p{L}\p{N}_-])[A-Za-z]{0,2}\d[\d-]{3,16}[A-Za-z0-9]?(?![\p{L}\p{N}_-])/gu;
const LICENSE_WORDS = [
  "driver's license",
  "drivers license",
  "driver license",
  "driving licence",
  "driver's licence",
  "dl#",
  "dl no",
  "dl number",
  "license number",
  "licence number",
  "license no",
  "license #",
];

export function findUsDriverLicenses(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  const lower = text.toLowerCase();
  if (!lower.includes("licen") && !lower.includes("dl")) return matches;
  for (const m of regexMatches(CANDIDATE, text)) {
    const raw = m[0];
    const digits = raw.replace(NON_DIGITS, "").length;
    if (digits < 5 || raw.includes("--") || raw.endsWith("-")) continue;
    if (closestKeywordBefore(text, m.index, 32, LICENSE_WORDS) === undefined) continue;
    matches.push({
      entity_type: "US_DRIVER_LICENSE",
      start: m.index,
      end: m.index + raw.length,
      score: 0.8,
    });
  }
  return matches;
}

export const usDriverLicenseDetector: PiiDetector = {
  entities: ["US_DRIVER_LICENSE"],
  find: findUsDriverLicenses,
};
