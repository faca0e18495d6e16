/**
 * Runs every built-in detector over one text, the way the gateway's guard stage does: the scan
 * views are built once and shared by the injection and safety scorers.
 */
import type { Verdict } from "../guardrails/verdict.js";
import { buildScanViews } from "../guardrails/normalize/scan-views.js";
import {
  DEFAULT_INJECTION_THRESHOLD,
  injectionVerdict,
} from "../guardrails/injection/injection-verdict.js";
import { DEFAULT_SAFETY_THRESHOLD, safetyVerdict } from "../guardrails/safety/safety-verdict.js";
import type { SafetyCategory } from "../guardrails/safety/safety-categories.js";
import { detectPii } from "../guardrails/pii/detect.js";

export interface ScanOptions {
  injectionThreshold?: number;
  safetyThreshold?: number;
  categoryThresholds?: Partial<Record<SafetyCategory, number>>;
}

export interface PiiSpan {
  entity_type: string;
  start: number;
  end: number;
  score: number;
}

export interface TextScan {
  verdicts: Verdict[];
  scores: { prompt_injection: number; content_safety: number; categories: Record<string, number> };
  pii: PiiSpan[];
}

/** PII is reported, not judged: what happens to it (block or redact) is the caller's policy. */
function piiVerdict(spans: PiiSpan[]): Verdict {
  return {
    check: "pii",
    action: spans.length > 0 ? "flag" : "allow",
    score: spans.reduce((m, s) => Math.max(m, s.score), 0),
    threshold: 0,
    evidence: spans.map((s) => ({
      label: s.entity_type,
      start: s.start,
      end: s.end,
      score: s.score,
    })),
  };
}

export function scanText(text: string, options: ScanOptions = {}): TextScan {
  const views = buildScanViews(text);
  const injection = injectionVerdict(
    text,
    options.injectionThreshold ?? DEFAULT_INJECTION_THRESHOLD,
    views,
  );
  const safety = safetyVerdict(
    text,
    options.safetyThreshold ?? DEFAULT_SAFETY_THRESHOLD,
    options.categoryThresholds,
    views,
  );
  const pii = detectPii(text).map((m) => ({
    entity_type: m.entity_type,
    start: m.start,
    end: m.end,
    score: m.score,
  }));
  return {
    verdicts: [injection, safety, piiVerdict(pii)],
    scores: {
      prompt_injection: injection.score,
      content_safety: safety.score,
      categories: safety.categories ?? {},
    },
    pii,
  };
}
