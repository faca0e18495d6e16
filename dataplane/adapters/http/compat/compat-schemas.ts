import { z } from "zod";
import { CLASSIFICATION_LEVELS } from "../../../core/identity.js";
import { promptReferenceSchema } from "../../../prompts/prompt-schemas.js";

/** A model name as callers send it. */
const modelName = z.string().min(1, "model is required").max(256);

const message = z.looseObject({
  role: z.string().min(1).max(64),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
});

/**
 * Chat completions: the fields we act on are checked; unknown fields pass through to the backend.
 * `evident` is our own optional extension object and is removed before forwarding.
 */
export const chatCompletionRequest = z.looseObject({
  model: modelName,
  messages: z.array(message).min(1, "messages must not be empty").max(10_000),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().min(1).max(10_000_000).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).max(10_000_000).nullable().optional(),
  n: z.number().int().min(1).max(128).nullable().optional(),
  evident: z.strictObject({ classification: z.enum(CLASSIFICATION_LEVELS).optional() }).optional(),
});

/**
 * Chat completions on the REST façade: as above, and a caller may reference a prompt template in
 * `evident.prompt` instead of (or before) writing messages (docs/prompts.md).
 */
export const chatCompletionRequestWithPrompt = chatCompletionRequest
  .extend({
    messages: z.array(message).max(10_000).optional(),
    evident: z
      .strictObject({
        classification: z.enum(CLASSIFICATION_LEVELS).optional(),
        prompt: promptReferenceSchema.optional(),
      })
      .optional(),
  })
  .refine((b) => (b.messages?.length ?? 0) > 0 || b.evident?.prompt !== undefined, {
    message: "messages must not be empty (or reference a prompt in evident.prompt)",
    path: ["messages"],
  })
  .meta({ id: "CreateChatCompletionRequest" });

export const embeddingRequest = z.looseObject({
  model: modelName,
  input: z.union([
    z.string(),
    z.array(z.string()).min(1).max(100_000),
    z.array(z.number().int()).min(1),
    z.array(z.array(z.number().int()).min(1)).min(1),
  ]),
  evident: z.strictObject({ classification: z.enum(CLASSIFICATION_LEVELS).optional() }).optional(),
});

export const compatModel = z
  .object({
    id: z.string(),
    object: z.literal("model"),
    created: z.number().int(),
    owned_by: z.string(),
    root: z.string().optional(),
    aliases: z.array(z.string()).optional(),
    required_tier: z.string().optional(),
  })
  .meta({ id: "Model" });

export const modelList = z
  .object({ object: z.literal("list"), data: z.array(compatModel) })
  .meta({ id: "ListModelsResponse" });
