import type { Database, Queryable, SqlParam } from "./database.js";

/** Rollup granularity: one row per minute or per hour, each per customer and model. */
export type RollupTable = "analytics_minute" | "analytics_hour";

/** Counters of one bucket (what every rollup row and every query total carries). */
export interface RollupCounters {
  requests: number;
  failures: number;
  refusals: number;
  rateLimited: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencyMsSum: number;
}

export interface RollupRow extends RollupCounters {
  bucketStart: Date;
  customerId: string;
  model: string;
  /** Serialised latency sketch of the bucket's completed calls; null when none completed. */
  sketch: Uint8Array | null;
}

/** Combines a stored sketch with an added one (both serialised); the store never parses them. */
export type SketchMerge = (
  stored: Uint8Array | null,
  added: Uint8Array | null,
) => Uint8Array | null;

/** Customer filter: one customer's rows, or every customer's (admins). */
export type RollupScope = { customerId: string } | "all";

const COUNTER_COLUMNS = `requests, failures, refusals, rate_limited, prompt_tokens, completion_tokens,
  cost_usd, latency_ms_sum`;
const COUNTER_SUMS = `coalesce(sum(requests), 0)::float8 AS "requests",
  coalesce(sum(failures), 0)::float8 AS "failures",
  coalesce(sum(refusals), 0)::float8 AS "refusals",
  coalesce(sum(rate_limited), 0)::float8 AS "rateLimited",
  coalesce(sum(prompt_tokens), 0)::float8 AS "promptTokens",
  coalesce(sum(completion_tokens), 0)::float8 AS "completionTokens",
  coalesce(sum(cost_usd), 0)::float8 AS "costUsd",
  coalesce(sum(latency_ms_sum), 0)::float8 AS "latencyMsSum"`;
const BATCH = 500;

const key = (r: { customerId: string; bucketStart: Date; model: string }) =>
  `${r.customerId}\u0000${r.bucketStart.getTime()}\u0000${r.model}`;

function where(scope: RollupScope, params: SqlParam[]): string {
  if (scope === "all") return "bucket_start >= $1 AND bucket_start < $2";
  params.push(scope.customerId);
  return `customer_id = $${params.length} AND bucket_start >= $1 AND bucket_start < $2`;
}

/**
 * The analytics rollups (migration 14). Writes add counters and merge sketches under row locks, so
 * replicas flushing the same bucket never lose each other's calls; reads sum counters in SQL and
 * hand sketches back to be merged by the caller.
 */
export class AnalyticsRepository {
  constructor(private readonly db: Database) {}

  /** Adds the rows' counters to what is stored and merges their sketches (one row per key). */
  async add(table: RollupTable, rows: readonly RollupRow[], merge: SketchMerge): Promise<void> {
    // One order for every writer, so two replicas locking the same rows never deadlock.
    rows = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      await this.db.transaction((tx) => this.addBatch(tx, table, batch, merge));
    }
  }

  private async addBatch(
    tx: Queryable,
    table: RollupTable,
    rows: readonly RollupRow[],
    merge: SketchMerge,
  ): Promise<void> {
    const keyParams: SqlParam[] = [];
    const tuples = rows.map((r, i) => {
      keyParams.push(r.customerId, r.bucketStart, r.model);
      return `($${i * 3 + 1}::text, $${i * 3 + 2}::timestamptz, $${i * 3 + 3}::text)`;
    });
    // Rows that do not exist yet are created empty, then every row is locked before the update.
    await tx.query(
      `INSERT INTO ${table} (customer_id, bucket_start, model) VALUES ${tuples.join(", ")}
       ON CONFLICT DO NOTHING`,
      keyParams,
    );
    const stored = await tx.query<{
      customer_id: string;
      bucket_start: Date;
      model: string;
      latency_sketch: Uint8Array | null;
    }>(
      `SELECT customer_id, bucket_start, model, latency_sketch FROM ${table}
        WHERE (customer_id, bucket_start, model) IN (${tuples.join(", ")})
        ORDER BY customer_id, bucket_start, model FOR UPDATE`,
      keyParams,
    );
    const sketches = new Map(
      stored.map((s) => [
        key({ customerId: s.customer_id, bucketStart: new Date(s.bucket_start), model: s.model }),
        s.latency_sketch,
      ]),
    );
    const params: SqlParam[] = [];
    const values = rows.map((r) => {
      const merged = merge(sketches.get(key(r)) ?? null, r.sketch);
      params.push(
        r.customerId,
        r.bucketStart,
        r.model,
        r.requests,
        r.failures,
        r.refusals,
        r.rateLimited,
        r.promptTokens,
        r.completionTokens,
        r.costUsd,
        r.latencyMsSum,
        merged === null ? null : Buffer.from(merged),
      );
      const n = params.length - 12;
      const casts = ["text", "timestamptz", "text", "int", "int", "int", "int"]
        .concat(["bigint", "bigint", "float8", "float8", "bytea"])
        .map((type, j) => `$${n + j + 1}::${type}`);
      return `(${casts.join(", ")})`;
    });
    await tx.query(
      `UPDATE ${table} AS t SET
         requests = t.requests + v.requests, failures = t.failures + v.failures,
         refusals = t.refusals + v.refusals, rate_limited = t.rate_limited + v.rate_limited,
         prompt_tokens = t.prompt_tokens + v.prompt_tokens,
         completion_tokens = t.completion_tokens + v.completion_tokens,
         cost_usd = t.cost_usd + v.cost_usd, latency_ms_sum = t.latency_ms_sum + v.latency_ms_sum,
         latency_sketch = v.latency_sketch
       FROM (VALUES ${values.join(", ")}) AS v (customer_id, bucket_start, model, ${COUNTER_COLUMNS},
         latency_sketch)
       WHERE t.customer_id = v.customer_id AND t.bucket_start = v.bucket_start
         AND t.model = v.model`,
      params,
    );
  }

  /** Counters summed over [from, to). */
  async totals(table: RollupTable, scope: RollupScope, from: Date, to: Date) {
    const params: SqlParam[] = [from, to];
    const [row] = await this.db.query<RollupCounters>(
      `SELECT ${COUNTER_SUMS} FROM ${table} WHERE ${where(scope, params)}`,
      params,
    );
    return row ?? emptyCounters();
  }

  /** Per model: counters summed over [from, to) and every row's sketch, to be merged. */
  async byModel(table: RollupTable, scope: RollupScope, from: Date, to: Date) {
    const params: SqlParam[] = [from, to];
    return this.db.query<RollupCounters & { model: string; sketches: Uint8Array[] | null }>(
      `SELECT model, ${COUNTER_SUMS},
              array_agg(latency_sketch) FILTER (WHERE latency_sketch IS NOT NULL) AS "sketches"
         FROM ${table} WHERE ${where(scope, params)}
        GROUP BY model ORDER BY model`,
      params,
    );
  }

  /** Counters summed per bucket of `bucketSeconds` (aligned to the epoch) over [from, to). */
  async series(
    table: RollupTable,
    scope: RollupScope,
    from: Date,
    to: Date,
    bucketSeconds: number,
  ) {
    const params: SqlParam[] = [from, to];
    const condition = where(scope, params);
    params.push(bucketSeconds);
    const size = `$${params.length}::float8`;
    return this.db.query<RollupCounters & { bucket: number }>(
      `SELECT (floor(extract(epoch FROM bucket_start) / ${size}) * ${size})::float8 AS "bucket",
              ${COUNTER_SUMS}
         FROM ${table} WHERE ${condition}
        GROUP BY 1 ORDER BY 1`,
      params,
    );
  }
}

export function emptyCounters(): RollupCounters {
  return {
    requests: 0,
    failures: 0,
    refusals: 0,
    rateLimited: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    latencyMsSum: 0,
  };
}
