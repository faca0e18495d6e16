/** POST /api/v1/guardrails/rules/test: run a rule that is not persisted on sample content. */
import { z } from "zod";
import { compileRule } from "./compile-rule.js";
import { RULE_ACTIONS, ruleDefinitionSchema, type RuleDefinition } from "./rule-definition.js";

/** The largest sample a test accepts (characters). */
export const MAX_TEST_CONTENT = 100_000;

export const testRuleRequestSchema = z.strictObject({
  rule: ruleDefinitionSchema,
  content: z.string().max(MAX_TEST_CONTENT),
});
export type TestRuleRequest = z.output<typeof testRuleRequestSchema>;

const spanSchema = z.object({ start: z.int(), end: z.int() });

export const testRuleResponseSchema = z.object({
  verdict: z.object({
    check: z.string(),
    action: z.enum(["allow", "block", "redact", "flag"]),
    score: z.number(),
    threshold: z.number(),
    evidence: z.array(spanSchema.extend({ label: z.string(), score: z.number().optional() })),
  }),
  matches: z.array(spanSchema.extend({ label: z.string() })),
  /** The content with the matches replaced; null unless the rule's action is redact. */
  redacted_text: z.string().nullable(),
  /** What the gateway would do with this content: the rule's action when it matched, else allow. */
  action: z.enum(["allow", ...RULE_ACTIONS]),
});
export type TestRuleResponse = z.output<typeof testRuleResponseSchema>;

export function testRule(definition: RuleDefinition, content: string): TestRuleResponse {
  const { verdict, matches, redactedText } = compileRule(definition).evaluate(content);
  return {
    verdict: {
      check: verdict.check,
      action: verdict.action,
      score: verdict.score,
      threshold: verdict.threshold,
      evidence: verdict.evidence.map(({ start, end, label }) => ({ start, end, label })),
    },
    matches: matches.map(({ start, end, label }) => ({ start, end, label })),
    redacted_text: definition.action === "redact" ? (redactedText ?? content) : null,
    action: verdict.action,
  };
}
