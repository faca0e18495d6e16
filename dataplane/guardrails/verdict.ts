/**
 * What every guardrail returns. A guardrail is a pure function (input, params) -> Verdict; the
 * pipeline in core/ decides what a verdict does (block, mutate, only log). A block is a result,
 * not an exception.
 */

export type VerdictAction = "allow" | "block" | "redact" | "flag";

/** A span of text a detector points at; offsets are UTF-16 code units into the scanned text. */
export interface Span {
  start: number;
  end: number;
}

export interface Evidence extends Span {
  /** What was found, e.g. "EMAIL", "instruction_override", "violence". Never the matched value. */
  label: string;
  score?: number;
}

export interface Verdict {
  /** Which check produced it: "pii", "prompt_injection", "content_safety", "rule:<id>", ... */
  check: string;
  action: VerdictAction;
  /** In [0, 1]; the highest score that drove the action. */
  score: number;
  threshold: number;
  evidence: Evidence[];
  /** Per-category scores where the check has categories (content safety). */
  categories?: Record<string, number>;
}
