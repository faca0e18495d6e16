import { z } from "zod";
import { safeText } from "../prompts/prompt-schemas.js";

const modelFilter = safeText(256).pipe(z.string().min(1));

export const cacheStatsQuery = z.strictObject({
  window_hours: z.coerce.number().int().min(1).max(720).default(24),
});

export const invalidateSchema = z
  .strictObject({
    model: modelFilter.optional(),
    key_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "a key hash is 64 lower-case hex characters")
      .optional(),
  })
  .refine((b) => b.model !== undefined || b.key_hash !== undefined, {
    message: "name a model, a key_hash, or both",
  })
  .meta({ id: "CacheInvalidateRequest" });

const modelStats = z.object({
  model: z.string(),
  hits: z.number(),
  semantic_hits: z.number(),
  misses: z.number(),
  hit_rate: z.number(),
  tokens_saved: z.number(),
  cost_saved_usd: z.number(),
});

export const cacheStatsSchema = z
  .object({
    object: z.literal("cache.stats"),
    window_hours: z.number(),
    from: z.string(),
    to: z.string(),
    semantic_search: z.enum(["pgvector_hnsw", "exact_scan"]),
    totals: modelStats.omit({ model: true }).extend({
      embedding_calls: z.number().meta({
        description: "the semantic cache's embedding calls (each metered and audited on its own)",
      }),
      embedding_cost_usd: z.number().meta({
        description: "their cost; cost_saved_usd does not subtract it",
      }),
    }),
    by_model: z.array(modelStats),
  })
  .meta({ id: "CacheStatsResponse" });

export const cacheEntrySchema = z
  .object({
    object: z.literal("cache.entry"),
    key_hash: z.string(),
    model: z.string(),
    model_version: z.string().nullable(),
    semantic: z.boolean(),
    embedding_model: z.string().nullable(),
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    cost_usd: z.number(),
    hits: z.number(),
    created_at: z.string(),
    expires_at: z.string(),
    last_hit_at: z.string().nullable(),
  })
  .meta({ id: "CacheEntry" });

export const cacheEntryListSchema = z
  .object({ object: z.literal("list"), data: z.array(cacheEntrySchema), has_more: z.boolean() })
  .meta({ id: "CacheEntryListResponse" });

export const cacheEntriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  model: modelFilter.optional(),
});

export const deletedSchema = z
  .object({ object: z.literal("cache.deletion"), deleted: z.number() })
  .meta({ id: "CacheDeletionResponse" });
