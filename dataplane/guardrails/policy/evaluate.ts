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
import { PII_ENTITIES, type PiiEntity, type PiiMatch } from "../pii/entities.js";
import { createPlaceholderMap, type PlaceholderMap } from "../pii/redact.js";
import { buildScanViews, type ScanView } from "../normalize/scan-views.js";
import type { CompiledRule } from "../rules/compile-rule.js";
import type { SafetyCategory } from "../safety/safety-categories.js";
import type { Verdict } from "../verdict.js";
import {
  combineRedactions,
  type PlaceholderUse,
  type RedactionSpan,
} from "./combine-redactions.js";
import { builtInDetectors, type GuardrailDetectors } from "./guardrail-detectors.js";
import {
  checkName,
  failedClosedMessage,
  injectionMessage,
  piiMessage,
  ruleMessage,
  safetyMessage,
} from "./guardrail-messages.js";
import type { GuardrailPolicy } from "./policy-schema.js";

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

interface Block {
  code: GuardrailBlockCode;
  message: string;
  check: string;
}

class Evaluation {
  readonly verdicts: Verdict[] = [];
  readonly blocks: Block[] = [];
  readonly redactions: RedactionSpan[] = [];
  piiFound = false;
  private scanViews: ScanView[] | undefined;

  constructor(private readonly policy: GuardrailPolicy) {}

  /** The text's scan views (folded, leetspeak, decoded payloads...), built once for every check. */
  views(text: string): ScanView[] {
    return (this.scanViews ??= buildScanViews(text));
  }

  /**
   * Records a check that threw, per fail_mode. (The checks call it from their own catch rather
   * than through a guard taking a closure: no function is created per check and call.)
   */
  failed(check: string, code: GuardrailBlockCode, name: string): void {
    const closed = this.policy.fail_mode === "closed";
    this.verdicts.push({
      check,
      action: closed ? "block" : "allow",
      score: 0,
      threshold: 0,
      evidence: [{ start: 0, end: 0, label: "detector_error" }],
    });
    if (closed) this.blocks.push({ code, check, message: failedClosedMessage(name) });
  }
}

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

/** PII found once per text, shared by the safety classifiers and the PII policy. */
interface PiiDetection {
  matches: PiiMatch[] | undefined;
  error: unknown;
}

function detectOnce(text: string, detectors: GuardrailDetectors): PiiDetection {
  try {
    return { matches: detectors.pii(text, PII_ENTITIES), error: undefined };
  } catch (error) {
    return { matches: undefined, error };
  }
}

function runPii(run: Evaluation, policy: GuardrailPolicy, detection: PiiDetection): void {
  const check = "pii";
  const matches = detection.matches;
  if (matches === undefined) {
    run.failed(check, "pii_policy_block", checkName(check));
    return;
  }
  // Made on the first blocked match only (most texts have none).
  let blocked: Map<PiiEntity, number> | undefined;
  let redacts = false;
  let score = 0;
  for (const match of matches) {
    score = Math.max(score, match.score);
    const action = policy.pii.entities[match.entity_type] ?? policy.pii.action;
    if (action === "block") {
      blocked ??= new Map<PiiEntity, number>();
      blocked.set(match.entity_type, (blocked.get(match.entity_type) ?? 0) + 1);
    }
    if (action === "redact") {
      redacts = true;
      run.redactions.push({
        start: match.start,
        end: match.end,
        entity_type: match.entity_type,
        label: match.entity_type,
      });
    }
  }
  run.piiFound ||= matches.length > 0;
  run.verdicts.push({
    check,
    action: blocked !== undefined ? "block" : redacts ? "redact" : "allow",
    score,
    threshold: 0,
    evidence: matches.map((m) => ({
      start: m.start,
      end: m.end,
      label: m.entity_type,
      score: m.score,
    })),
  });
  if (blocked !== undefined)
    run.blocks.push({ code: "pii_policy_block", check, message: piiMessage(blocked) });
}

function runRule(run: Evaluation, rule: CompiledRule, text: string, map: PlaceholderMap): void {
  const definition = rule.definition;
  let result: ReturnType<CompiledRule["evaluate"]>;
  try {
    result = rule.evaluate(text, { placeholders: map });
  } catch {
    run.failed(rule.check, "custom_rule_block", checkName(rule.check, definition));
    return;
  }
  run.verdicts.push(result.verdict);
  if (result.matches.length === 0) return;
  if (definition.kind === "pii") run.piiFound = true;
  if (result.verdict.action === "block")
    run.blocks.push({
      code: "custom_rule_block",
      check: rule.check,
      message: ruleMessage(definition, result.matches.length, result.tokens),
    });
  if (result.verdict.action === "redact")
    for (const match of result.matches)
      run.redactions.push({
        start: match.start,
        end: match.end,
        label: rule.check,
        ...(match.entity_type !== undefined
          ? { entity_type: match.entity_type }
          : { placeholder: rule.placeholder }),
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
