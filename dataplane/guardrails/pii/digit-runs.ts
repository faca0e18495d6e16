/**
 * Runs of digit groups joined by single separators ("4111 1111 1111 1111", "555-123-4567").
 * Detectors for numbers pick sub-runs of whole groups from these, so two numbers written next to
 * each other are not read as one. Linear: the separators are not digits, so the regex has one way
 * to match, and a run starts only where no word character precedes it.
 */
import { regexMatches } from "./regex-matches.js";

/** Regexes used per match, compiled once (a literal in a function is a new object per call). */
const ANY_DIGIT = /\d/;
const ALL_DIGITS = /^\d+$/;

export interface DigitGroup {
  start: number;
  end: number;
  digits: string;
}

export interface DigitRun {
  start: number;
  end: number;
  groups: DigitGroup[];
  /** The separator characters between groups, one per gap (length groups - 1). */
  separators: string[];
}

/** The run regex per separator set, compiled once. */
const RUN_REGEXES = new Map<string, RegExp>();

function runRegex(separators: string): RegExp {
  let run = RUN_REGEXES.get(separators);
  if (run === undefined) {
    const sep = separators.replace(/[\\\]^-]/g, "\\$&");
    run = new RegExp(`(?<![\\p{L}\\p{N}_])\\d+(?:[${sep}]\\d+)*(?![\\p{L}_])`, "gu");
    RUN_REGEXES.set(separators, run);
  }
  return run;
}

/** Runs shorter than `minLength` characters (separators included) are skipped unsplit. */
export function findDigitRuns(text: string, separators: string, minLength = 1): DigitRun[] {
  const runs: DigitRun[] = [];
  if (!ANY_DIGIT.test(text)) return runs;
  for (const m of regexMatches(runRegex(separators), text)) {
    if (m[0].length < minLength) continue;
    const groups: DigitGroup[] = [];
    const gaps: string[] = [];
    let at = m.index;
    for (const part of m[0].split(/(\D)/)) {
      if (ALL_DIGITS.test(part)) groups.push({ start: at, end: at + part.length, digits: part });
      else gaps.push(part);
      at += part.length;
    }
    runs.push({ start: m.index, end: m.index + m[0].length, groups, separators: gaps });
  }
  return runs;
}
