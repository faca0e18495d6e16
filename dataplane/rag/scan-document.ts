import { GatewayError } from "../core/errors.js";
import { scoreInjection } from "../guardrails/injection/score-injection.js";
import { isPiiEntity } from "../guardrails/pii/entities.js";
import { createPlaceholderMap } from "../guardrails/pii/redact.js";
import { evaluateInput } from "../guardrails/policy/evaluate.js";
import type { GuardrailPolicy } from "../guardrails/policy/policy-schema.js";
import type { Section } from "./extract-text.js";

/**
 * The customer's PII policy applied to a document's text, before chunking (so an entity is never
 * cut in two by a chunk boundary): an entity whose action is `redact` becomes a placeholder
 * (`[EMAIL_ADDRESS_1]`, numbered per document, originals never kept); one whose action is `block`
 * refuses the whole document (400 pii_policy_block, naming the types and counts, never values).
 * With PII disabled in the policy the text is kept as it is.
 */
export function applyPiiPolicy(sections: readonly Section[], policy: GuardrailPolicy): Section[] {
  if (!policy.pii.enabled) return [...sections];
  const piiOnly: GuardrailPolicy = {
    ...policy,
    injection: { ...policy.injection, enabled: false },
    safety: { ...policy.safety, enabled: false },
    model_checks: [],
  };
  const placeholders = createPlaceholderMap();
  return sections.map((section) => {
    const evaluation = evaluateInput(piiOnly, [], section.text, { placeholders });
    const decision = evaluation.decision;
    if (decision.kind === "block") {
      const where = section.page === null ? "" : ` (page ${section.page})`;
      throw new GatewayError(
        decision.code === "pii_policy_block" ? "pii_policy_block" : "custom_rule_block",
        `document refused${where}: ${decision.message}`,
      );
    }
    return decision.kind === "redact" ? { ...section, text: decision.text } : section;
  });
}

const PLACEHOLDER = /\[([A-Z_]+)_\d+\]/g;

/** The PII placeholders in a chunk: how many, and which entity types. */
export function redactionsIn(text: string): { count: number; entities: string[] } {
  let count = 0;
  const entities = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) {
    const entity = match[1] ?? "";
    if (!isPiiEntity(entity)) continue;
    count++;
    entities.add(entity);
  }
  return { count, entities: [...entities].sort() };
}

/**
 * Indirect prompt injection in a chunk (instructions hidden in a document that would address the
 * model reading it, the BIPIA kind): the prompt-injection detector's score, and whether it reaches
 * the customer's injection threshold. Marking, not refusing: a marked chunk stays searchable and
 * is left out of `query` context unless the caller asks for it.
 */
export function injectionMark(
  text: string,
  threshold: number,
): { injection: boolean; score: number } {
  const { score } = scoreInjection(text);
  return { injection: score >= threshold, score: Math.round(score * 10_000) / 10_000 };
}
