import type { ArmObservation } from "../routing/routes/ab-statistics.js";
import { FIELDS_PARSED_ONCE } from "./audit-fields-sql.js";
import type { Queryable, SqlParam } from "./database.js";

/**
 * Which inference calls an A/B result reads from the audit log: `arm` and `match` are SQL over
 * `f`, the record's fields parsed once (FIELDS_PARSED_ONCE); `match` uses parameters $2 onwards,
 * given in `params`. Both are the callers' constants, never input.
 */
export interface ArmQuery {
  arm: string;
  match: string;
  params: readonly SqlParam[];
}

/** A customer's calls that `query` matches, newest first, at most `limit`, as A/B observations. */
export async function armObservations(
  db: Queryable,
  customerId: string,
  query: ArmQuery,
  limit: number,
): Promise<ArmObservation[]> {
  const rows = await db.query<{
    arm: string | null;
    status: string | null;
    outcome: string | null;
    latency_ms: string | null;
    total_tokens: string | null;
    cost_usd: string | null;
  }>(
    `SELECT ${query.arm} AS arm, f->>'status' AS status, a.outcome,
            f->>'latency_ms' AS latency_ms, f->'usage'->>'total_tokens' AS total_tokens,
            f->>'cost_usd' AS cost_usd
       FROM audit_records a CROSS JOIN LATERAL (${FIELDS_PARSED_ONCE}) AS j
      WHERE a.customer_id = $1 AND a.kind = 'inference' AND a.fields IS NOT NULL
        AND ${query.match}
      ORDER BY a.seq DESC LIMIT $${query.params.length + 2}`,
    [customerId, ...query.params, limit],
  );
  return rows.map((r) => ({
    arm: r.arm ?? "(none)",
    status: num(r.status),
    outcome: r.outcome,
    latencyMs: num(r.latency_ms),
    totalTokens: num(r.total_tokens),
    costUsd: num(r.cost_usd),
  }));
}

function num(v: string | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
