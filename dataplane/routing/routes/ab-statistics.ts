/** One inference call of a route, as the audit log recorded it. */
export interface ArmObservation {
  arm: string;
  status: number | null;
  outcome: string | null;
  latencyMs: number | null;
  totalTokens: number | null;
  costUsd: number | null;
}

export interface ArmStats {
  model: string;
  calls: number;
  errors: number;
  error_rate: number;
  latency_ms: { p50: number | null; p95: number | null };
  tokens: number;
  cost_usd: number;
}

export interface ErrorRateTest {
  test: "two_proportion_z";
  arms: [string, string];
  z: number;
  p_value: number;
  significant_at_0_05: boolean;
}

/** An error the arm is answerable for: the backend failed, not the caller or a guardrail. */
export function isArmError(o: ArmObservation): boolean {
  return o.outcome === "upstream_error" || o.outcome === "stream_failed" || (o.status ?? 0) >= 500;
}

/** Per-arm figures, in the order of `arms` (the route's targets), then any other arm seen. */
export function armStats(
  arms: readonly string[],
  observations: readonly ArmObservation[],
): ArmStats[] {
  const groups = new Map<string, ArmObservation[]>(arms.map((a) => [a, []]));
  for (const o of observations) {
    const list = groups.get(o.arm) ?? [];
    list.push(o);
    groups.set(o.arm, list);
  }
  return [...groups].map(([model, list]) => {
    const errors = list.filter(isArmError).length;
    const latencies = list
      .map((o) => o.latencyMs)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    return {
      model,
      calls: list.length,
      errors,
      error_rate: list.length === 0 ? 0 : errors / list.length,
      latency_ms: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
      tokens: list.reduce((sum, o) => sum + (o.totalTokens ?? 0), 0),
      cost_usd: Math.round(list.reduce((sum, o) => sum + (o.costUsd ?? 0), 0) * 1e8) / 1e8,
    };
  });
}

/** Nearest-rank percentile of sorted values; null when there are none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1] ?? null;
}

/**
 * Two-sided two-proportion z-test on error rates (pooled standard error). With no calls in an
 * arm, or no variation at all (pooled rate 0 or 1), there is no evidence of a difference: z = 0,
 * p = 1.
 */
export function errorRateTest(a: ArmStats, b: ArmStats): ErrorRateTest {
  const pooled = (a.errors + b.errors) / (a.calls + b.calls || 1);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / (a.calls || 1) + 1 / (b.calls || 1)));
  const z = a.calls === 0 || b.calls === 0 || se === 0 ? 0 : (a.error_rate - b.error_rate) / se;
  const p = 2 * (1 - normalCdf(Math.abs(z)));
  const pValue = Math.min(1, Math.max(0, p));
  return {
    test: "two_proportion_z",
    arms: [a.model, b.model],
    z: round(z, 4),
    p_value: round(pValue, 6),
    significant_at_0_05: pValue < 0.05,
  };
}

/** Standard normal CDF via the Abramowitz-Stegun 7.1.26 erf approximation (|error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
