import { closestKeywordBefore } from "./context-words.js";
import type { PiiDetector, PiiMatch } from "./entities.js";
import { regexMatches } from "./regex-matches.js";

/**
 * US Social Security numbers: AAA-GG-SSSS. Never issued: area 000, 666 or 900-999, group 00,
 * serial 0000, and a few famous advertising numbers. Dashed numbers count on their own; numbers
 * written with spaces or without separators need an SSN word shortly before them.
 */

const CANDIDATE =
  /(?<![\p{L}\p{N}_.\-/])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\p{L}\p{N}_]|[-/]\d|\.\d)/gu;

const SSN_WORDS = [
  "ssn",
  "social security",
  "social-security",
  "soc sec",
  "ss#",
  "ss #",
  "taxpayer",
  "tin",
];
const OTHER_WORDS = [
  "phone",
  "tel",
  "call",
  "fax",
  "mobile",
  "order",
  "invoice",
  "account",
  "license",
  "licence",
  "zip",
];

const ALL_WORDS = [...SSN_WORDS, ...OTHER_WORDS];

const NEVER_ISSUED = new Set(["078051120", "219099999", "123456789", "457555462"]);

export function isValidSsn(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  if (a === 0 || a === 666 || a >= 900) return false;
  if (group === "00" || serial === "0000") return false;
  return !NEVER_ISSUED.has(area + group + serial);
}

export function findUsSsns(text: string): PiiMatch[] {
  const matches: PiiMatch[] = [];
  for (const m of regexMatches(CANDIDATE, text)) {
    const [raw, area = "", separator = "", group = "", serial = ""] = m;
    if (!isValidSsn(area, group, serial)) continue;
    const keyword = closestKeywordBefore(text, m.index, 48, ALL_WORDS);
    const ssnContext = keyword !== undefined && SSN_WORDS.includes(keyword);
    if (separator !== "-" && !ssnContext) continue;
    if (keyword !== undefined && !ssnContext) continue;
    matches.push({
      entity_type: "US_SSN",
      start: m.index,
      end: m.index + raw.length,
      score: ssnContext ? 0.95 : 0.85,
    });
  }
  return matches;
}

export const usSsnDetector: PiiDetector = { entities: ["US_SSN"], find: findUsSsns };
