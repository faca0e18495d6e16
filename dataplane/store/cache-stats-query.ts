import type { Queryable } from "./database.js";
import { FIELDS_PARSED_ONCE } from "./audit-fields-sql.js";

export interface CacheStatsRow {
  model: string;
  hits: number;
  semanticHits: number;
  misses: number;
  tokensSaved: number;
  costSavedUsd: number;
}

/** Hits and misses per model since `from`, from the audit log's cache details. */
export async function cacheStats(
  db: Queryable,
  customerId: string,
  from: Date,
): Promise<CacheStatsRow[]> {
  const rows = await db.query<{
    model: string | null;
    hits: string | number;
    semantic_hits: string | number;
    misses: string | number;
    tokens_saved: string | number | null;
    cost_saved: string | number | null;
  }>(
    `SELECT COALESCE(a.model, f->>'subject') AS model,
              count(*) FILTER (WHERE f->'details'->'cache'->>'result' = 'hit') AS hits,
              count(*) FILTER (WHERE f->'details'->'cache'->>'result' = 'hit'
                                 AND f->'details'->'cache'->>'kind' = 'semantic') AS semantic_hits,
              count(*) FILTER (WHERE f->'details'->'cache'->>'result' = 'miss') AS misses,
              sum((f->'details'->'cache'->>'saved_tokens')::numeric) AS tokens_saved,
              sum((f->'details'->'cache'->>'saved_cost_usd')::numeric) AS cost_saved
         FROM audit_records a CROSS JOIN LATERAL (${FIELDS_PARSED_ONCE}) AS j
        WHERE a.customer_id = $1 AND a.kind = 'inference' AND a.occurred_at >= $2
          AND f->'details'->'cache' IS NOT NULL
        GROUP BY 1 ORDER BY 1`,
    [customerId, from],
  );
  return rows.map((r) => ({
    model: r.model ?? "(unknown)",
    hits: Number(r.hits),
    semanticHits: Number(r.semantic_hits),
    misses: Number(r.misses),
    tokensSaved: Number(r.tokens_saved ?? 0),
    costSavedUsd: Math.round(Number(r.cost_saved ?? 0) * 1e8) / 1e8,
  }));
}

export interface EmbeddingOverhead {
  calls: number;
  costUsd: number;
}

/** The semantic cache's embedding calls since `from` (their own audit records) and their cost. */
export async function cacheEmbeddingOverhead(
  db: Queryable,
  customerId: string,
  from: Date,
): Promise<EmbeddingOverhead> {
  const [row] = await db.query<{ calls: string | number; cost: string | number | null }>(
    `SELECT count(*) AS calls, sum((fields->>'cost_usd')::numeric) AS cost
       FROM audit_records
      WHERE customer_id = $1 AND kind = 'inference' AND occurred_at >= $2
        AND fields->'details'->'cache_embedding' IS NOT NULL`,
    [customerId, from],
  );
  return {
    calls: Number(row?.calls ?? 0),
    costUsd: Math.round(Number(row?.cost ?? 0) * 1e8) / 1e8,
  };
}
