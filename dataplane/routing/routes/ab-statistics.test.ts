import test from "ava";
import {
  armStats,
  errorRateTest,
  normalCdf,
  percentile,
  type ArmObservation,
  type ArmStats,
} from "./ab-statistics.js";

const obs = (arm: string, status: number, latencyMs: number): ArmObservation => ({
  arm,
  status,
  outcome: status >= 500 ? "upstream_error" : status === 429 ? "rate_limited" : "completed",
  latencyMs,
  totalTokens: status === 200 ? 10 : null,
  costUsd: status === 200 ? 0.001 : null,
});

test("normalCdf matches the standard normal table", (t) => {
  t.true(Math.abs(normalCdf(0) - 0.5) < 1e-7);
  t.true(Math.abs(normalCdf(1.959964) - 0.975) < 1e-6);
  t.true(Math.abs(normalCdf(-1.644854) - 0.05) < 1e-6);
});

test("percentile is nearest-rank; none without values", (t) => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  t.is(percentile(sorted, 0.5), 50);
  t.is(percentile(sorted, 0.95), 95);
  t.is(percentile([7], 0.95), 7);
  t.is(percentile([], 0.5), null);
});

test("arm stats: errors are backend failures only (a 429 is not the arm's fault)", (t) => {
  const [a, b] = armStats(
    ["a", "b"],
    [obs("a", 200, 10), obs("a", 429, 1), obs("b", 502, 30), obs("b", 200, 20)],
  );
  t.like(a, { model: "a", calls: 2, errors: 0, tokens: 10, cost_usd: 0.001 });
  t.like(b, { model: "b", calls: 2, errors: 1, error_rate: 0.5 });
  t.deepEqual(b?.latency_ms, { p50: 20, p95: 30 });
  t.deepEqual(
    armStats(["a", "b"], []).map((s) => s.calls),
    [0, 0],
  );
});

test("z-test: textbook example and the no-evidence cases", (t) => {
  // 10/200 vs 30/200 errors: pooled 0.1, se = sqrt(0.1*0.9*(2/200)) = 0.03; z = -0.1/0.03.
  const arms = armStats(
    ["a", "b"],
    [
      ...Array.from({ length: 200 }, (_, i) => obs("a", i < 10 ? 500 : 200, 1)),
      ...Array.from({ length: 200 }, (_, i) => obs("b", i < 30 ? 500 : 200, 1)),
    ],
  );
  const [a, b] = arms as [ArmStats, ArmStats];
  const result = errorRateTest(a, b);
  t.is(result.z, -3.3333);
  t.true(Math.abs(result.p_value - 0.000858) < 2e-6);
  t.true(result.significant_at_0_05);
  const [x, y] = armStats(["a", "b"], [obs("a", 200, 1), obs("b", 200, 1)]) as [ArmStats, ArmStats];
  t.like(errorRateTest(x, y), { z: 0, p_value: 1, significant_at_0_05: false });
  const [e1, e2] = armStats(["a", "b"], [obs("a", 500, 1)]) as [ArmStats, ArmStats];
  t.like(errorRateTest(e1, e2), { z: 0, p_value: 1 });
});
