import { z } from "zod";

export const promptFeedbackRequestSchema = z
  .strictObject({
    request_id: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, "a request id is 1 to 128 printable ASCII characters")
      .meta({ description: "the X-Request-ID of the chat completion that used the prompt" }),
    score: z.number().min(0).max(1).meta({
      description: "the user's rating of the answer, 0 (bad) to 1 (good); thumbs: 0 or 1",
    }),
  })
  .meta({ id: "PromptFeedbackRequest" });

export const promptFeedbackResponseSchema = z
  .object({
    object: z.literal("prompt.feedback"),
    request_id: z.string(),
    slug: z.string(),
    version: z.number(),
    arm: z.string().nullable(),
    ab_test_id: z.string().nullable(),
    score: z.number(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "PromptFeedbackResponse" });

/** Per-arm feedback in the A/B results. */
export const armFeedbackSchema = z.object({
  count: z.number(),
  mean_score: z.number().nullable(),
});
