/** The prompt-injection guardrail: score -> Verdict (check "prompt_injection"). */
import type { Verdict } from "../verdict.js";
import type { ScanView } from "../normalize/scan-views.js";
import { scoreInjection } from "./score-injection.js";

export const DEFAULT_INJECTION_THRESHOLD = 0.5;

export function injectionVerdict(
  text: string,
  threshold = DEFAULT_INJECTION_THRESHOLD,
  views?: ScanView[],
): Verdict {
  const { score, signals } = scoreInjection(text, views);
  return {
    check: "prompt_injection",
    action: score >= threshold ? "block" : "allow",
    score,
    threshold,
    evidence: signals.map((s) => ({ label: s.label, start: s.start, end: s.end, score: s.weight })),
  };
}
