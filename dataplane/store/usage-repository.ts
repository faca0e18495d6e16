import type { Queryable } from "./database.js";
import { FIELDS_PARSED_ONCE } from "./audit-fields-sql.js";

/** Metered usage of one (minute, customer, key, model) bucket; counters add up on conflict. */
export interface UsageBucket {
  bucketStart: Date;
  customerId: string;
  keyId: string;
  model: string;
  requests: number;
  errors: number;
  rateLimited: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencyMsSum: number;
}

export interface ModelUsage {
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface RepeatedPrompts {
  /** Distinct request bodies sent more than once. */
  distinctPrompts: number;
  /** Calls that repeated an earlier identical request. */
  repeatCalls: number;
  /** Cost of those repeat calls (the average cost of their prompt times the repeats). */
  repeatCostUsd: number;
}

const COLUMNS = 11;

/** Usage aggregated per minute (usage_records): written in batches, read for budgets and hints. */
export class UsageRepository {
  constructor(private readonly db: Queryable) {}

  /** Adds the buckets' counters to what is stored (one statement for the whole batch). */
  async add(buckets: readonly UsageBucket[]): Promise<void> {
    if (buckets.length === 0) return;
    const params: (string | number | Date)[] = [];
    const rows = buckets.map((b, i) => {
      params.push(
        b.bucketStart,
        b.customerId,
        b.keyId,
        b.model,
        b.requests,
        b.errors,
        b.rateLimited,
        b.promptTokens,
        b.completionTokens,
        b.costUsd,
        b.latencyMsSum,
      );
      const at = i * COLUMNS;
      return `(${Array.from({ length: COLUMNS }, (_, j) => `$${at + j + 1}`).join(", ")})`;
    });
    await this.db.query(
      `INSERT INTO usage_records (bucket_start, customer_id, key_id, model, requests, errors,
         rate_limited, prompt_tokens, completion_tokens, cost_usd, latency_ms_sum)
       VALUES ${rows.join(", ")}
       ON CONFLICT (customer_id, bucket_start, key_id, model) DO UPDATE SET
         requests = usage_records.requests + EXCLUDED.requests,
         errors = usage_records.errors + EXCLUDED.errors,
         rate_limited = usage_records.rate_limited + EXCLUDED.rate_limited,
         prompt_tokens = usage_records.prompt_tokens + EXCLUDED.prompt_tokens,
         completion_tokens = usage_records.completion_tokens + EXCLUDED.completion_tokens,
         cost_usd = usage_records.cost_usd + EXCLUDED.cost_usd,
         latency_ms_sum = usage_records.latency_ms_sum + EXCLUDED.latency_ms_sum`,
      params,
    );
  }

  /** Total cost of a customer's calls in [from, to). */
  async spend(customerId: string, from: Date, to: Date): Promise<number> {
    const rows = await this.db.query<{ usd: number | null }>(
      `SELECT sum(cost_usd)::float8 AS usd FROM usage_records
        WHERE customer_id = $1 AND bucket_start >= $2 AND bucket_start < $3`,
      [customerId, from, to],
    );
    return rows[0]?.usd ?? 0;
  }

  /** When the customer's first usage in [from, to) was metered, if any. */
  async firstUse(customerId: string, from: Date, to: Date): Promise<Date | null> {
    const rows = await this.db.query<{ first: Date | null }>(
      `SELECT min(bucket_start) AS first FROM usage_records
        WHERE customer_id = $1 AND bucket_start >= $2 AND bucket_start < $3`,
      [customerId, from, to],
    );
    const first = rows[0]?.first;
    return first ? new Date(first) : null;
  }

  /** Calls, tokens and cost per model in [from, to), calls that reached a model only. */
  async byModel(customerId: string, from: Date, to: Date): Promise<ModelUsage[]> {
    return this.db.query<ModelUsage>(
      `SELECT model, sum(requests)::float8 AS "requests",
              sum(prompt_tokens)::float8 AS "promptTokens",
              sum(completion_tokens)::float8 AS "completionTokens",
              sum(cost_usd)::float8 AS "costUsd"
         FROM usage_records
        WHERE customer_id = $1 AND bucket_start >= $2 AND bucket_start < $3
          AND requests > errors
        GROUP BY model ORDER BY sum(cost_usd) DESC`,
      [customerId, from, to],
    );
  }

  /** Requests and 429s of a customer in [from, to). */
  async limitHits(
    customerId: string,
    from: Date,
    to: Date,
  ): Promise<{ requests: number; rateLimited: number }> {
    const rows = await this.db.query<{ requests: number | null; rate_limited: number | null }>(
      `SELECT sum(requests)::float8 AS requests, sum(rate_limited)::float8 AS rate_limited
         FROM usage_records
        WHERE customer_id = $1 AND bucket_start >= $2 AND bucket_start < $3`,
      [customerId, from, to],
    );
    return { requests: rows[0]?.requests ?? 0, rateLimited: rows[0]?.rate_limited ?? 0 };
  }

  /** Identical request bodies sent more than once (from the audit records' request digests). */
  async repeatedPrompts(customerId: string, from: Date, to: Date): Promise<RepeatedPrompts> {
    const rows = await this.db.query<{ prompts: number; repeats: number; cost: number | null }>(
      `SELECT count(*)::float8 AS prompts, coalesce(sum(n - 1), 0)::float8 AS repeats,
              coalesce(sum(cost * (n - 1) / n), 0)::float8 AS cost
         FROM (SELECT count(*) AS n, sum(coalesce((f->>'cost_usd')::float8, 0)) AS cost
                 FROM audit_records a CROSS JOIN LATERAL (${FIELDS_PARSED_ONCE}) AS j
                WHERE a.customer_id = $1 AND a.occurred_at >= $2 AND a.occurred_at < $3
                  AND a.kind = 'inference' AND a.fields IS NOT NULL AND a.outcome = 'completed'
                GROUP BY f->>'request_sha256'
               HAVING count(*) > 1) AS repeated`,
      [customerId, from, to],
    );
    const r = rows[0];
    return {
      distinctPrompts: r?.prompts ?? 0,
      repeatCalls: r?.repeats ?? 0,
      repeatCostUsd: r?.cost ?? 0,
    };
  }
}
