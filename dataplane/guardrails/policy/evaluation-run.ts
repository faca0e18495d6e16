/**
 * One run of a policy over one text (evaluate.ts): the verdicts, blocks and redactions its checks
 * collect, a check that threw recorded per fail_mode, and the PII and custom-rule checks.
 */
import { PII_ENTITIES, type PiiEntity, type PiiMatch } from "../pii/entities.js";
import type { PlaceholderMap } from "../pii/redact.js";
import { buildScanViews, type ScanView } from "../normalize/scan-views.js";
import type { CompiledRule } from "../rules/compile-rule.js";
import type { Verdict } from "../verdict.js";
import type { RedactionSpan } from "./combine-redactions.js";
import type { GuardrailDetectors } from "./guardrail-detectors.js";
import { checkName, failedClosedMessage, piiMessage, ruleMessage } from "./guardrail-messages.js";
import type { GuardrailBlockCode } from "./evaluate.js";
import type { GuardrailPolicy } from "./policy-schema.js";

export interface Block {
  code: GuardrailBlockCode;
  message: string;
  check: string;
}

export class Evaluation {
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

/** PII found once per text, shared by the safety classifiers and the PII policy. */
export interface PiiDetection {
  matches: PiiMatch[] | undefined;
  error: unknown;
}

export function detectOnce(text: string, detectors: GuardrailDetectors): PiiDetection {
  try {
    return { matches: detectors.pii(text, PII_ENTITIES), error: undefined };
  } catch (error) {
    return { matches: undefined, error };
  }
}

export function runPii(run: Evaluation, policy: GuardrailPolicy, detection: PiiDetection): void {
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

export function runRule(
  run: Evaluation,
  rule: CompiledRule,
  text: string,
  map: PlaceholderMap,
): void {
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
