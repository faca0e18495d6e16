/**
 * Runs a customer's policy over one text: the built-in detectors (prompt injection on input only,
 * content safety, PII) and the customer's enabled custom rules for that direction. Returns every
 * verdict (for audit) and the one decision the pipeline acts on. Pure apart from the placeholder
 * map, which the caller passes so one request's texts share placeholder numbering.
 *
 * Precedence when several checks block: prompt injection, content safety, PII, custom rules (in
 * the order given). A detector that throws follows `fail_mode`: closed blocks with that check's
 * code, open lets the call through with an "allow" verdict labelled "detector_error".
 */
import type { ClassificationLevel } from "../../core/identity.js";
import { createPlaceholderMap, type PlaceholderMap } from "../pii/redact.js";
import type { CompiledRule } from "../rules/compile-rule.js";
import type { SafetyCategory } from "../safety/safety-categories.js";
import type { Verdict } from "../verdict.js";
import { combineRedactions, type PlaceholderUse } from "./combine-redactions.js";
import { builtInDetectors, type GuardrailDetectors } from "./guardrail-detectors.js";
import { checkName, injectionMessage, safetyMessage } from "./guardrail-messages.js";
import type { GuardrailPolicy } from "./policy-schema.js";
import { detectOnce, Evaluation, runPii, runRule, type PiiDetection } from "./evaluation-run.js";

export type GuardrailBlockCode =
  "pii_policy_block" | "prompt_injection_detected" | "content_safety_block" | "custom_rule_block";

export type GuardrailDecision =
  | { kind: "allow" }
  | { kind: "block"; code: GuardrailBlockCode; message: string; check: string }
  | { kind: "redact"; text: string; placeholders: PlaceholderUse[] };

export interface GuardrailEvaluation {
  verdicts: Verdict[];
  decision: GuardrailDecision;
  /** "public" when nothing was detected; the policy's pii_floor when PII was found. */
  detectedClassification: ClassificationLevel;
  /** placeholder -> original for restoring; holds values: memory only, never logged or stored. */
  placeholderMap: PlaceholderMap;
}

export interface EvaluateOptions {
  /** Replaces built-in detectors (tests; model-backed checks). */
  detectors?: Partial<GuardrailDetectors>;
  /** The request's placeholder map, shared by all texts of one request. */
  placeholders?: PlaceholderMap;
}

type Direction = "input" | "output";

function runInjection(
  run: Evaluation,
  policy: GuardrailPolicy,
  text: string,
  detectors: GuardrailDetectors,
): void {
  const { threshold, action } = policy.injection;
  const check = "prompt_injection";
  let verdict: Verdict;
  try {
    verdict = detectors.injection(text, threshold, run.views(text));
  } catch {
    run.failed(check, "prompt_injection_detected", checkName(check));
    return;
  }
  const hit = verdict.score >= threshold;
  run.verdicts.push({ ...verdict, threshold, action: hit ? action : "allow" });
  if (hit && action === "block")
    run.blocks.push({
      code: "prompt_injection_detected",
      check,
      message: injectionMessage(verdict.score, threshold),
    });
}

function runSafety(
  run: Evaluation,
  policy: GuardrailPolicy,
  text: string,
  detectors: GuardrailDetectors,
  pii: PiiDetection | undefined,
  direction: Direction,
): void {
  const { threshold, categories, action } = policy.safety;
  const check = "content_safety";
  const subject = direction === "output" ? "answer" : "request";
  let verdict: Verdict;
  try {
    verdict = detectors.safety(text, threshold, categories, pii?.matches, run.views(text), subject);
  } catch {
    run.failed(check, "content_safety_block", checkName(check));
    return;
  }
  // The driving category: the highest score at or over its limit (the first of equals).
  let driver: string | undefined;
  let driverScore = 0;
  let driverLimit = 0;
  const scores = verdict.categories;
  if (scores !== undefined)
    for (const category in scores) {
      if (!Object.hasOwn(scores, category)) continue;
      const score = scores[category]!;
      const limit = categories[category as SafetyCategory] ?? threshold;
      if (score >= limit && (driver === undefined || score > driverScore)) {
        driver = category;
        driverScore = score;
        driverLimit = limit;
      }
    }
  const hit = driver !== undefined || (scores === undefined && verdict.action === "block");
  run.verdicts.push({ ...verdict, action: hit ? action : "allow" });
  if (hit && action === "block")
    run.blocks.push({
      code: "content_safety_block",
      check,
      message:
        driver === undefined
          ? safetyMessage(undefined, verdict.score, verdict.threshold)
          : safetyMessage(driver, driverScore, driverLimit),
    });
}

function evaluate(
  direction: Direction,
  policy: GuardrailPolicy,
  rules: readonly CompiledRule[],
  text: string,
  options: EvaluateOptions,
): GuardrailEvaluation {
  const detectors: GuardrailDetectors =
    options.detectors === undefined
      ? builtInDetectors
      : { ...builtInDetectors, ...options.detectors };
  const map = options.placeholders ?? createPlaceholderMap();
  const run = new Evaluation(policy);
  if (direction === "input" && policy.injection.enabled) runInjection(run, policy, text, detectors);
  const pii = policy.pii.enabled ? detectOnce(text, detectors) : undefined;
  if (policy.safety.enabled) runSafety(run, policy, text, detectors, pii, direction);
  if (pii) runPii(run, policy, pii);
  for (const rule of rules)
    if (rule.definition.enabled && rule.appliesTo(direction)) runRule(run, rule, text, map);

  const detectedClassification: ClassificationLevel = run.piiFound
    ? policy.classification.pii_floor
    : "public";
  const block = run.blocks[0];
  let decision: GuardrailDecision = { kind: "allow" };
  if (block !== undefined) decision = { kind: "block", ...block };
  else if (run.redactions.length > 0)
    decision = { kind: "redact", ...combineRedactions(text, run.redactions, map) };
  return { verdicts: run.verdicts, decision, detectedClassification, placeholderMap: map };
}

/** The options of a call given none (shared: a default `{}` would be a new object per call). */
const NO_OPTIONS: EvaluateOptions = Object.freeze({});

/** Guards a request text (a message, tool arguments, a system prompt, embeddings input...). */
export function evaluateInput(
  policy: GuardrailPolicy,
  rules: readonly CompiledRule[],
  text: string,
  options: EvaluateOptions = NO_OPTIONS,
): GuardrailEvaluation {
  return evaluate("input", policy, rules, text, options);
}

/**
 * Guards a response text: output rules, PII and content safety; no prompt injection. Run it on the
 * model's text before restoring placeholders (restorePlaceholders from pii/redact.ts), so restored
 * originals are not scanned as new PII.
 */
export function evaluateOutput(
  policy: GuardrailPolicy,
  rules: readonly CompiledRule[],
  text: string,
  options: EvaluateOptions = NO_OPTIONS,
): GuardrailEvaluation {
  return evaluate("output", policy, rules, text, options);
}
