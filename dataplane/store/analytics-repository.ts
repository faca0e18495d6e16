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
const BATCH = 2000;

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
    const column = <T>(f: (r: RollupRow) => T) => rows.map(f);
    // Counters are added in one upsert, which also locks each row until the transaction ends;
    // the sketch column is untouched by it, so RETURNING hands back the stored sketch.
    const stored = await tx.query<{
      customer_id: string;
      bucket_start: Date;
      model: string;
      latency_sketch: Uint8Array | null;
    }>(
      `INSERT INTO ${table} (customer_id, bucket_start, model, ${COUNTER_COLUMNS})
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::int[], $5::int[],
         $6::int[], $7::int[], $8::bigint[], $9::bigint[], $10::float8[], $11::float8[])
       ON CONFLICT (customer_id, bucket_start, model) DO UPDATE SET
         requests = ${table}.requests + EXCLUDED.requests,
         failures = ${table}.failures + EXCLUDED.failures,
         refusals = ${table}.refusals + EXCLUDED.refusals,
         rate_limited = ${table}.rate_limited + EXCLUDED.rate_limited,
         prompt_tokens = ${table}.prompt_tokens + EXCLUDED.prompt_tokens,
         completion_tokens = ${table}.completion_tokens + EXCLUDED.completion_tokens,
         cost_usd = ${table}.cost_usd + EXCLUDED.cost_usd,
         latency_ms_sum = ${table}.latency_ms_sum + EXCLUDED.latency_ms_sum
       RETURNING customer_id, bucket_start, model, latency_sketch`,
      [
        column((r) => r.customerId),
        column((r) => r.bucketStart.toISOString()),
        column((r) => r.model),
        column((r) => r.requests),
        column((r) => r.failures),
        column((r) => r.refusals),
        column((r) => r.rateLimited),
        column((r) => r.promptTokens),
        column((r) => r.completionTokens),
        column((r) => r.costUsd),
        column((r) => r.latencyMsSum),
      ],
    );
    const sketches = new Map(
      stored.map((s) => [
        key({ customerId: s.customer_id, bucketStart: new Date(s.bucket_start), model: s.model }),
        s.latency_sketch,
      ]),
    );
    const changed = rows.filter((r) => r.sketch !== null);
    if (changed.length === 0) return;
    // bytea[] does not cross every driver intact: sketches travel as hex text.
    const merged = changed.map((r) => {
      const m = merge(sketches.get(key(r)) ?? null, r.sketch);
      return m === null ? null : Buffer.from(m).toString("hex");
    });
    await tx.query(
      `UPDATE ${table} AS t SET latency_sketch = decode(v.sketch, 'hex')
         FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[])
           AS v (customer_id, bucket_start, model, sketch)
        WHERE t.customer_id = v.customer_id AND t.bucket_start = v.bucket_start
          AND t.model = v.model`,
      [
        changed.map((r) => r.customerId),
        changed.map((r) => r.bucketStart.toISOString()),
        changed.map((r) => r.model),
        merged,
      ],
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
    const condition = where(scope, params);
    // Sketches come one per row: a bytea column decodes far faster than a bytea[] aggregate.
    const [totals, sketches] = await Promise.all([
      this.db.query<RollupCounters & { model: string }>(
        `SELECT model, ${COUNTER_SUMS} FROM ${table} WHERE ${condition}
          GROUP BY model ORDER BY model`,
        params,
      ),
      this.db.query<{ model: string; latency_sketch: Uint8Array }>(
        `SELECT model, latency_sketch FROM ${table}
          WHERE ${condition} AND latency_sketch IS NOT NULL`,
        params,
      ),
    ]);
    const byModel = new Map<string, Uint8Array[]>();
    for (const s of sketches) {
      const list = byModel.get(s.model) ?? [];
      list.push(s.latency_sketch);
      byModel.set(s.model, list);
    }
    return totals.map((t) => ({ ...t, sketches: byModel.get(t.model) ?? [] }));
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
