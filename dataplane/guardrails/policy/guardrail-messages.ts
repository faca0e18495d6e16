/**
 * The plain-words messages of guardrail blocks (the 400 body's `message`). They name the check and
 * its threshold or policy; they never quote the text that matched.
 */
import type { PiiEntity } from "../pii/entities.js";
import type { RuleDefinition } from "../rules/rule-definition.js";

function score(value: number): string {
  return value.toFixed(2);
}

function comparison(value: number, threshold: number): string {
  return value > threshold ? "is above" : "reaches";
}

export function injectionMessage(value: number, threshold: number): string {
  return `prompt injection score ${score(value)} ${comparison(value, threshold)} the threshold ${score(threshold)}`;
}

export function safetyMessage(
  category: string | undefined,
  value: number,
  threshold: number,
): string {
  const what =
    category === undefined
      ? "content safety score"
      : `content safety score for ${category.replaceAll("_", " ")}`;
  return `${what} ${score(value)} ${comparison(value, threshold)} the threshold ${score(threshold)}`;
}

export function piiMessage(counts: ReadonlyMap<PiiEntity, number>): string {
  const found = [...counts].map(([entity, n]) => `${entity} (${n} found)`).join(", ");
  return `PII policy blocks ${found}: the policy action for ${counts.size === 1 ? "this type" : "these types"} is block`;
}

export function ruleMessage(
  rule: RuleDefinition,
  matches: number,
  tokens: number | undefined,
): string {
  if (rule.kind === "max_tokens")
    return `custom rule "${rule.name}": the text has ${tokens ?? "more"} tokens, above the limit of ${rule.max_tokens ?? 0}`;
  const times = matches === 1 ? "1 time" : `${matches} times`;
  return `custom rule "${rule.name}" (${rule.kind}) matched ${times}; its action is block`;
}

/** The check's name in words, for failure messages. */
export function checkName(check: string, rule?: RuleDefinition): string {
  if (rule !== undefined) return `custom rule "${rule.name}"`;
  if (check === "prompt_injection") return "prompt injection";
  if (check === "content_safety") return "content safety";
  if (check === "pii") return "PII";
  return check;
}

export function failedClosedMessage(name: string): string {
  return `${name} check failed; blocking (fail_mode closed)`;
}
