import { hasLoneSurrogate } from "../core/storable-text.js";
import { z } from "zod";
import { armFeedbackSchema } from "./prompt-feedback-schemas.js";
import { VARIABLE_NAME } from "./render-template.js";

/** Text we store and send on: no NUL (Postgres rejects it) and no unpaired UTF-16 surrogate. */
export function safeText(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => !s.includes("\u0000"), "must not contain NUL characters")
    .refine((s) => !hasLoneSurrogate(s), "must not contain unpaired UTF-16 surrogates");
}

export const promptSlug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "a slug is lower-case letters, digits, '.', '_' and '-'");

const variableName = z.string().regex(VARIABLE_NAME, "a variable name is [A-Za-z_][A-Za-z0-9_]*");

const templateMessage = z
  .strictObject({
    role: z.enum(["system", "developer", "user", "assistant"]),
    content: safeText(100_000),
    name: safeText(64).optional(),
  })
  .meta({ id: "PromptTemplateMessage" });

/** Parameters a version may carry; a caller's own request fields take precedence. */
const promptParams = z
  .strictObject({
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    max_tokens: z.number().int().min(1).max(10_000_000).optional(),
    max_completion_tokens: z.number().int().min(1).max(10_000_000).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    seed: z.number().int().optional(),
    stop: z.union([safeText(200), z.array(safeText(200)).max(4)]).optional(),
    response_format: z
      .looseObject({ type: z.enum(["text", "json_object", "json_schema"]) })
      .optional(),
  })
  .meta({ id: "PromptModelParams" });

export const promptCreateSchema = z
  .strictObject({
    slug: promptSlug,
    name: safeText(200).optional(),
    description: safeText(2000).optional(),
    tags: z
      .array(safeText(64).pipe(z.string().min(1)))
      .max(32)
      .optional(),
  })
  .meta({ id: "PromptCreate" });

export const promptUpdateSchema = z
  .strictObject({
    name: safeText(200).pipe(z.string().min(1)).optional(),
    description: safeText(2000).optional(),
    tags: z
      .array(safeText(64).pipe(z.string().min(1)))
      .max(32)
      .optional(),
  })
  .meta({ id: "PromptUpdate" });

export const versionCreateSchema = z
  .strictObject({
    messages: z.array(templateMessage).min(1).max(100),
    variables: z.array(variableName).max(100).default([]),
    model: safeText(256).pipe(z.string().min(1)).nullable().optional(),
    params: promptParams.default({}),
    note: safeText(2000).optional(),
  })
  .meta({ id: "PromptVersionCreate" });

export const versionUpdateSchema = z
  .strictObject({
    messages: z.array(templateMessage).min(1).max(100).optional(),
    variables: z.array(variableName).max(100).optional(),
    model: safeText(256).pipe(z.string().min(1)).nullable().optional(),
    params: promptParams.optional(),
    note: safeText(2000).optional(),
  })
  .meta({ id: "PromptVersionUpdate" });

const variableValues = z.record(
  z.string().max(64),
  z.union([safeText(100_000), z.number(), z.boolean()]),
);

export const renderRequestSchema = z
  .strictObject({
    version: z.number().int().min(1).optional(),
    variables: variableValues.default({}),
  })
  .meta({ id: "PromptRenderRequest" });

export const abTestCreateSchema = z
  .strictObject({
    arms: z
      .array(
        z.strictObject({ version: z.number().int().min(1), weight: z.number().min(0).max(1000) }),
      )
      .min(2)
      .max(10)
      .refine((a) => a.some((x) => x.weight > 0), "at least one arm needs a weight above 0")
      .refine((a) => new Set(a.map((x) => x.version)).size === a.length, "each version once"),
    sticky: z.boolean().default(false),
    enabled: z.boolean().default(true),
  })
  .meta({ id: "PromptAbTestCreate" });

/**
 * A reference to a prompt inside a chat completion (`evident.prompt`): the published version (or
 * the A/B arm picked for the call) unless `version` names one.
 */
export const promptReferenceSchema = z
  .strictObject({
    slug: promptSlug,
    version: z.number().int().min(1).optional(),
    variables: variableValues.default({}),
  })
  .meta({ id: "PromptReference" });

export type PromptReference = z.output<typeof promptReferenceSchema>;

// Responses.
const abTestJson = z
  .object({
    id: z.string(),
    arms: z.array(z.object({ version: z.number(), weight: z.number() })),
    sticky: z.boolean(),
    enabled: z.boolean(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
  })
  .meta({ id: "PromptAbTest" });

export const promptResponseSchema = z
  .object({
    object: z.literal("prompt"),
    slug: z.string(),
    customer_id: z.string(),
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    archived: z.boolean(),
    archived_at: z.string().nullable(),
    latest_version: z.number().nullable(),
    published_version: z.number().nullable(),
    ab_test: abTestJson.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PromptResponse" });

export const promptListSchema = z
  .object({ object: z.literal("list"), data: z.array(promptResponseSchema), has_more: z.boolean() })
  .meta({ id: "PromptListResponse" });

export const versionResponseSchema = z
  .object({
    object: z.literal("prompt.version"),
    slug: z.string(),
    version: z.number(),
    status: z.enum(["draft", "published"]),
    messages: z.array(templateMessage),
    variables: z.array(z.string()),
    model: z.string().nullable(),
    params: z.record(z.string(), z.unknown()),
    note: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    published_at: z.string().nullable(),
  })
  .meta({ id: "PromptVersionResponse" });

export const versionListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(versionResponseSchema),
    has_more: z.boolean(),
  })
  .meta({ id: "PromptVersionListResponse" });

export const renderResponseSchema = z
  .object({
    object: z.literal("prompt.render"),
    slug: z.string(),
    version: z.number(),
    messages: z.array(templateMessage),
    model: z.string().nullable(),
    params: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "PromptRenderResponse" });

export const abResultsSchema = z
  .object({
    object: z.literal("prompt.ab_results"),
    slug: z.string(),
    ab_test: abTestJson.nullable(),
    calls: z.number(),
    truncated: z.boolean(),
    error_definition: z.string(),
    arms: z.array(
      z.object({
        model: z.string().meta({ description: "the arm: 'v' and the version number" }),
        version: z.number(),
        calls: z.number(),
        errors: z.number(),
        error_rate: z.number(),
        latency_ms: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
        tokens: z.number(),
        cost_usd: z.number(),
        feedback: armFeedbackSchema.meta({
          description: "users' scores of this arm's calls (POST /api/v1/prompts/{slug}/feedback)",
        }),
      }),
    ),
    analysis: z
      .object({
        test: z.literal("two_proportion_z"),
        arms: z.tuple([z.string(), z.string()]),
        z: z.number(),
        p_value: z.number(),
        significant_at_0_05: z.boolean(),
      })
      .nullable(),
  })
  .meta({ id: "PromptAbResults" });
