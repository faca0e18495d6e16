/**
 * A customer's custom guardrail rule as it travels on the wire (snake_case). One schema for
 * create, one deep-partial schema for update; both check the kind-specific fields and refuse the
 * fields of other kinds, with issues that point at the offending path.
 */
import { z } from "zod";
import { PII_ENTITIES } from "../pii/entities.js";
import { checkRegexSafety, MAX_PATTERN_LENGTH, REGEX_FLAGS } from "./regex-safety.js";

export const RULE_KINDS = ["regex", "keyword", "pii", "max_tokens"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const RULE_ACTIONS = ["block", "redact", "flag"] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const RULE_DIRECTIONS = ["input", "output", "both"] as const;
export type RuleDirection = (typeof RULE_DIRECTIONS)[number];

export const MAX_KEYWORDS = 1000;
export const MAX_KEYWORD_LENGTH = 200;

/** The fields each kind needs; every other kind-specific field is refused for that kind. */
const KIND_FIELDS = {
  regex: ["pattern"],
  keyword: ["keywords"],
  pii: ["entities"],
  max_tokens: ["max_tokens"],
} as const satisfies Record<RuleKind, readonly string[]>;

const OPTIONAL_KIND_FIELDS: Record<RuleKind, readonly string[]> = {
  regex: ["flags"],
  keyword: ["whole_word"],
  pii: [],
  max_tokens: [],
};

const KIND_SPECIFIC = ["pattern", "flags", "keywords", "whole_word", "entities", "max_tokens"];

const flagsSchema = z
  .string()
  .max(REGEX_FLAGS.length)
  .refine((flags) => [...flags].every((f) => REGEX_FLAGS.includes(f)), {
    message: `flags may only contain ${REGEX_FLAGS.split("").join(", ")}`,
  })
  .refine((flags) => new Set(flags).size === flags.length, { message: "flags repeat a letter" });

const ruleFields = {
  name: z.string().trim().min(1).max(200),
  kind: z.enum(RULE_KINDS),
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
  flags: flagsSchema,
  keywords: z.array(z.string().trim().min(1).max(MAX_KEYWORD_LENGTH)).min(1).max(MAX_KEYWORDS),
  whole_word: z.boolean(),
  entities: z.array(z.enum(PII_ENTITIES)).min(1).max(PII_ENTITIES.length),
  max_tokens: z.int().min(1).max(10_000_000),
  action: z.enum(RULE_ACTIONS),
  applies_to: z.enum(RULE_DIRECTIONS),
  enabled: z.boolean(),
  description: z.string().max(2000),
};

interface RuleShape {
  kind?: RuleKind;
  action?: RuleAction;
  pattern?: string;
  flags?: string;
  [field: string]: unknown;
}

/** Cross-field rules shared by create and (merged) update. */
function checkKindFields(rule: RuleShape, ctx: z.RefinementCtx): void {
  const kind = rule.kind;
  if (kind === undefined) return;
  for (const field of KIND_FIELDS[kind])
    if (rule[field] === undefined)
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `${field} is required for kind ${kind}`,
      });
  const allowed = new Set<string>([...KIND_FIELDS[kind], ...OPTIONAL_KIND_FIELDS[kind]]);
  for (const field of KIND_SPECIFIC)
    if (rule[field] !== undefined && !allowed.has(field))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `${field} is not allowed for kind ${kind}`,
      });
  if (kind === "max_tokens" && rule.action === "redact")
    ctx.addIssue({
      code: "custom",
      path: ["action"],
      message: "redact is not allowed for kind max_tokens (there is no span to replace)",
    });
  if (kind === "regex" && typeof rule.pattern === "string") {
    const safety = checkRegexSafety(rule.pattern, rule.flags ?? "");
    if (!safety.ok) ctx.addIssue({ code: "custom", path: ["pattern"], message: safety.reason });
  }
}

const ruleObject = z.strictObject({
  name: ruleFields.name,
  kind: ruleFields.kind,
  pattern: ruleFields.pattern.optional(),
  flags: ruleFields.flags.optional(),
  keywords: ruleFields.keywords.optional(),
  whole_word: ruleFields.whole_word.optional(),
  entities: ruleFields.entities.optional(),
  max_tokens: ruleFields.max_tokens.optional(),
  action: ruleFields.action.default("block"),
  applies_to: ruleFields.applies_to.default("input"),
  enabled: ruleFields.enabled.default(true),
  description: ruleFields.description.optional(),
});

/** CreateRuleRequest, and the definition part of TestRuleRequest. */
export const ruleDefinitionSchema = ruleObject.superRefine(checkKindFields);

/** RuleResponse: the stored definition with its id and times (ISO 8601). */
export const ruleResponseSchema = ruleObject.extend({
  rule_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RuleResponse = z.output<typeof ruleResponseSchema>;

/** RuleListResponse. */
export const ruleListResponseSchema = z.object({
  rules: z.array(ruleResponseSchema),
  total: z.int().min(0),
});

export type RuleDefinition = z.output<typeof ruleDefinitionSchema>;
export type RuleDefinitionInput = z.input<typeof ruleDefinitionSchema>;

/**
 * UpdateRuleRequest: any subset of the fields; `null` removes an optional field (e.g. switching
 * kind from regex to keyword needs `"pattern": null`). Cross-field checks run on the merged rule.
 */
export const ruleUpdateSchema = z.strictObject({
  name: ruleFields.name.optional(),
  kind: ruleFields.kind.optional(),
  pattern: ruleFields.pattern.nullable().optional(),
  flags: ruleFields.flags.nullable().optional(),
  keywords: ruleFields.keywords.nullable().optional(),
  whole_word: ruleFields.whole_word.nullable().optional(),
  entities: ruleFields.entities.nullable().optional(),
  max_tokens: ruleFields.max_tokens.nullable().optional(),
  action: ruleFields.action.optional(),
  applies_to: ruleFields.applies_to.optional(),
  enabled: ruleFields.enabled.optional(),
  description: ruleFields.description.nullable().optional(),
});

export type RuleUpdate = z.output<typeof ruleUpdateSchema>;

/**
 * Applies an update to a stored definition and validates the result. Returns zod's result so the
 * caller maps issues (with paths) to its 422 body.
 */
export function mergeRuleUpdate(
  current: RuleDefinition,
  update: RuleUpdate,
): z.ZodSafeParseResult<RuleDefinition> {
  const merged: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(update)) {
    if (value === undefined) continue;
    if (value === null) delete merged[field];
    else merged[field] = value;
  }
  return ruleDefinitionSchema.safeParse(merged);
}
