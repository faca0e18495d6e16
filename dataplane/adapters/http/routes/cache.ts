import type { AppContext } from "../../../app/context.js";
import {
  cacheConfigSchema,
  cacheConfigUpdateSchema,
  type CacheConfig,
} from "../../../cache/cache-config.js";
import {
  cacheEntriesQuery,
  cacheEntryListSchema,
  cacheStatsQuery,
  cacheStatsSchema,
  deletedSchema,
  invalidateSchema,
} from "../../../cache/cache-schemas.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { resolveCallRoute } from "../../../routing/routes/resolve-call-route.js";
import type { StoredEntry } from "../../../store/cache-entry-rows.js";
import {
  cacheEmbeddingOverhead,
  cacheStats,
  type CacheStatsRow,
} from "../../../store/cache-stats-query.js";
import { errorSchema, listBody } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

function entryJson(e: StoredEntry) {
  return {
    object: "cache.entry" as const,
    key_hash: e.keyHash,
    model: e.model,
    model_version: e.modelVersion,
    semantic: e.semantic,
    embedding_model: e.embeddingModel,
    prompt_tokens: e.promptTokens,
    completion_tokens: e.completionTokens,
    cost_usd: e.costUsd,
    hits: e.hits,
    created_at: e.createdAt.toISOString(),
    expires_at: e.expiresAt.toISOString(),
    last_hit_at: e.lastHitAt?.toISOString() ?? null,
  };
}

function statsJson(model: string, rows: Omit<CacheStatsRow, "model">[]) {
  const sum = (f: (r: Omit<CacheStatsRow, "model">) => number) =>
    rows.reduce((s, r) => s + f(r), 0);
  const hits = sum((r) => r.hits);
  const misses = sum((r) => r.misses);
  return {
    model,
    hits,
    semantic_hits: sum((r) => r.semanticHits),
    misses,
    hit_rate: hits + misses === 0 ? 0 : Math.round((hits / (hits + misses)) * 1e6) / 1e6,
    tokens_saved: sum((r) => r.tokensSaved),
    cost_saved_usd: Math.round(sum((r) => r.costSavedUsd) * 1e8) / 1e8,
  };
}

/** The response cache (spec 4.9): the customer's settings, statistics and entries. */
export function cacheRoutes(ctx: AppContext): AnyRouteSpec[] {
  const { repo, configs } = ctx.responseCache;
  const who = (c: Caller | undefined) => c as Caller;

  /** Semantic mode needs an embedding model this customer can route to. */
  function assertSemanticUsable(caller: Caller, config: CacheConfig): void {
    if (config.mode !== "semantic") return;
    if (!config.embedding_model) {
      throw new GatewayError(
        "validation_failed",
        "semantic mode needs embedding_model: the model (routed through this gateway) that embeds prompts to compare them",
        { detail: [{ loc: ["body", "embedding_model"], msg: "required", type: "missing" }] },
      );
    }
    try {
      resolveCallRoute(ctx.routing.current, ctx.health, {
        customerId: caller.customer.id,
        tier: caller.customer.tier,
        requestedModel: config.embedding_model,
        requestHeaders: undefined,
      });
    } catch (err) {
      const why = err instanceof GatewayError ? err.message : "not routable";
      const msg = `embedding_model '${config.embedding_model}' cannot be used: ${why}`;
      throw new GatewayError("validation_failed", msg, {
        detail: [{ loc: ["body", "embedding_model"], msg, type: "embedding_model" }],
      });
    }
  }

  return [
    route({
      method: "GET",
      path: "/api/v1/cache/stats",
      tag: "cache",
      summary: "Hits, misses, hit rate, tokens and cost saved, by model, over window_hours",
      query: cacheStatsQuery,
      responses: {
        200: { description: "CacheStatsResponse", schema: cacheStatsSchema },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const to = new Date(ctx.clock.now());
        const from = new Date(to.getTime() - query.window_hours * 3_600_000);
        const customerId = who(caller).customer.id;
        // From the audit log: this replica's records written first, as the audit API does.
        await ctx.audit.caughtUp();
        const [rows, overhead] = await Promise.all([
          cacheStats(ctx.db, customerId, from),
          cacheEmbeddingOverhead(ctx.db, customerId, from),
        ]);
        return {
          status: 200,
          body: {
            object: "cache.stats",
            window_hours: query.window_hours,
            from: from.toISOString(),
            to: to.toISOString(),
            semantic_search: repo.searchKind,
            totals: {
              ...(({ model: _m, ...rest }) => rest)(statsJson("", rows)),
              embedding_calls: overhead.calls,
              embedding_cost_usd: overhead.costUsd,
            },
            by_model: rows.map((r) => statsJson(r.model, [r])),
          },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/cache/config",
      tag: "cache",
      summary: "The customer's cache settings (CacheConfig; off until enabled)",
      responses: { 200: { description: "CacheConfig", schema: cacheConfigSchema }, ...errors },
      handler: async ({ caller }) => ({
        status: 200,
        body: await configs.get(who(caller).customer.id),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/cache/config",
      tag: "cache",
      summary: "Change cache settings (CacheConfigUpdate); semantic mode needs embedding_model",
      audit: "cache.config.update",
      body: cacheConfigUpdateSchema,
      responses: { 200: { description: "CacheConfig", schema: cacheConfigSchema }, ...errors },
      handler: async ({ body, caller }) => {
        const customerId = who(caller).customer.id;
        const next = cacheConfigSchema.parse({ ...(await configs.get(customerId)), ...body });
        assertSemanticUsable(who(caller), next);
        await configs.set(customerId, next);
        return { status: 200, body: next };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/cache/entries",
      tag: "cache",
      summary: "Live cache entries, newest first (metadata only, never the stored answer)",
      query: cacheEntriesQuery,
      responses: {
        200: { description: "CacheEntryListResponse", schema: cacheEntryListSchema },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const rows = await repo.list(who(caller).customer.id, {
          model: query.model,
          limit: query.limit,
          offset: query.offset,
          now: new Date(ctx.clock.now()),
        });
        return { status: 200, body: listBody(rows.map(entryJson), query.limit) };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/cache/invalidate",
      tag: "cache",
      summary: "Remove the customer's entries of a model and/or with a key hash",
      audit: "cache.invalidate",
      body: invalidateSchema,
      responses: {
        200: { description: "CacheDeletionResponse", schema: deletedSchema },
        ...errors,
      },
      handler: async ({ body, caller }) => ({
        status: 200,
        body: {
          object: "cache.deletion",
          deleted: await repo.invalidate(who(caller).customer.id, {
            model: body.model,
            keyHash: body.key_hash,
          }),
        },
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/cache/flush",
      tag: "cache",
      summary: "Remove every cache entry of the customer",
      audit: "cache.flush",
      responses: {
        200: { description: "CacheDeletionResponse", schema: deletedSchema },
        ...errors,
      },
      handler: async ({ caller }) => ({
        status: 200,
        body: { object: "cache.deletion", deleted: await repo.flush(who(caller).customer.id) },
      }),
    }),
  ];
}
