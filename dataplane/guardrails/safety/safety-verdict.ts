/** The content-safety guardrail: per-category scores -> Verdict (check "content_safety"). */
import type { Verdict } from "../verdict.js";
import type { ScanView } from "../normalize/scan-views.js";
import { SAFETY_CATEGORIES, type SafetyCategory } from "./safety-categories.js";
import { scoreSafety, type IdentifierSpan, type SafetySubject } from "./score-safety.js";

export const DEFAULT_SAFETY_THRESHOLD = 0.5;

/**
 * Block when any category reaches its threshold (`categoryThresholds[c]`, else `threshold`). The
 * verdict's score is the highest category score relative to which the decision was made.
 */
export function safetyVerdict(
  text: string,
  threshold = DEFAULT_SAFETY_THRESHOLD,
  categoryThresholds: Partial<Record<SafetyCategory, number>> = {},
  views?: ScanView[],
  identifiers?: readonly IdentifierSpan[],
  subject: SafetySubject = "request",
): Verdict {
  const { scores, signals } = scoreSafety(text, views, identifiers, subject);
  let blocking: SafetyCategory | undefined;
  let top: SafetyCategory = SAFETY_CATEGORIES[0];
  // Each score read once (a keyed load over twelve names is not cheap).
  let topScore = scores[top];
  let blockingScore = 0;
  for (const c of SAFETY_CATEGORIES) {
    const score = scores[c];
    if (score > topScore) {
      top = c;
      topScore = score;
    }
    const limit = categoryThresholds[c] ?? threshold;
    if (score >= limit && (blocking === undefined || score > blockingScore)) {
      blocking = c;
      blockingScore = score;
    }
  }
  const driver = blocking ?? top;
  return {
    check: "content_safety",
    action: blocking === undefined ? "allow" : "block",
    score: scores[driver],
    threshold: categoryThresholds[driver] ?? threshold,
    evidence: signals.map((s) => ({ label: s.label, start: s.start, end: s.end, score: s.weight })),
    // scoreSafety made `scores` for this call and keeps no reference: no copy.
    categories: scores,
  };
}
