/**
 * The built-in detectors evaluate.ts runs, behind one interface so a test (or a model-backed
 * check) can stand in for any of them.
 */
import { injectionVerdict } from "../injection/injection-verdict.js";
import { detectPii } from "../pii/detect.js";
import type { PiiEntity, PiiMatch } from "../pii/entities.js";
import type { ScanView } from "../normalize/scan-views.js";
import type { SafetyCategory } from "../safety/safety-categories.js";
import { safetyVerdict } from "../safety/safety-verdict.js";
import type { SafetySubject } from "../safety/score-safety.js";
import type { Verdict } from "../verdict.js";

export interface GuardrailDetectors {
  pii(text: string, entities: readonly PiiEntity[]): PiiMatch[];
  /** `views`: the text's scan views when already built (shared with the safety check). */
  injection(text: string, threshold: number, views?: ScanView[]): Verdict;
  /**
   * `identifiers`: PII already found in `text`, so the safety classifiers need not look again;
   * `subject`: "answer" on output (see score-safety.ts), else "request".
   */
  safety(
    text: string,
    threshold: number,
    categories: Partial<Record<SafetyCategory, number>>,
    identifiers?: readonly PiiMatch[],
    views?: ScanView[],
    subject?: SafetySubject,
  ): Verdict;
}

export const builtInDetectors: GuardrailDetectors = {
  pii: (text, entities) => detectPii(text, { entities }),
  injection: (text, threshold, views) => injectionVerdict(text, threshold, views),
  safety: (text, threshold, categories, identifiers, views, subject) =>
    safetyVerdict(text, threshold, categories, views, identifiers, subject),
};
