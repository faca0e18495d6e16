import test from "ava";
import { storeBackends } from "../../test/support/databases.js";
import { manualClock } from "../core/clock.js";
import { AnalyticsRepository } from "../store/analytics-repository.js";
import { migrate } from "../store/migrate.js";
import { AnalyticsService, segments } from "./analytics-service.js";
import { RollupRecorder, type RecordedCall } from "./rollup-recorder.js";

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 20, 12, 30, 15);

function calls(at: number, n: number, extra: Partial<RecordedCall> = {}): RecordedCall[] {
  return Array.from({ length: n }, (_, i) => ({
    at,
    customerId: "cus_a",
    model: "m1",
    class: "success" as const,
    latencyMs: i + 1,
    promptTokens: 10,
    completionTokens: 5,
    costUsd: 0.01,
    rateLimited: false,
    ...extra,
  }));
}

test("a window is read from hour rows in the middle and minute rows at the edges", (t) => {
  const parts = segments(NOW - 24 * HOUR, NOW);
  t.deepEqual(
    parts.map((p) => [p.table, p.from.toISOString(), p.to.toISOString()]),
    [
      ["analytics_minute", "2026-11-19T12:30:00.000Z", "2026-11-19T13:00:00.000Z"],
      ["analytics_hour", "2026-11-19T13:00:00.000Z", "2026-11-20T12:00:00.000Z"],
      ["analytics_minute", "2026-11-20T12:00:00.000Z", "2026-11-20T12:31:00.000Z"],
    ],
  );
  t.is(segments(NOW - 10 * 60_000, NOW).length, 1);
});

for (const backend of storeBackends()) {
  test(`${backend.name}: windows, percentiles and two replicas' flushes of the same minute add up`, async (t) => {
    const { db, drop } = await backend.open();
    try {
      await migrate(db);
      const repo = new AnalyticsRepository(db);
      const fail = (err: unknown) => t.fail(String(err));
      const replicaA = new RollupRecorder(repo, fail);
      const replicaB = new RollupRecorder(repo, fail);
      // 40 days ago: outside every window. 10 days ago: 30d only. 3 days ago: 30d and 7d.
      for (const c of calls(NOW - 40 * 24 * HOUR, 7)) replicaA.record(c);
      for (const c of calls(NOW - 10 * 24 * HOUR, 10, { class: "failure" })) replicaA.record(c);
      for (const c of calls(NOW - 3 * 24 * HOUR, 20, { class: "refusal" })) replicaA.record(c);
      // Within the last 24 h, in the partial first hour, whole hours and the current minute;
      // the current minute written by both replicas.
      for (const c of calls(NOW - 23.9 * HOUR, 50)) replicaA.record(c);
      for (const c of calls(NOW - 5 * HOUR, 50)) replicaB.record(c);
      for (const c of calls(NOW, 1, { class: "failure" })) replicaA.record(c);
      for (const c of calls(NOW - 1000, 1, { class: "failure" })) replicaB.record(c);
      await Promise.all([replicaA.flush(), replicaB.flush()]);

      const service = new AnalyticsService(repo, manualClock(NOW));
      const scope = { customerId: "cus_a" };
      const availability = await service.availability(scope);
      t.deepEqual(
        availability.windows.map((w) => [w.window, w.requests, w.failures, w.counted_requests]),
        [
          ["30d", 132, 12, 112],
          ["7d", 122, 2, 102],
          ["24h", 102, 2, 102],
        ],
      );
      t.is(availability.windows[2]?.availability_percent, 98.0392);
      t.deepEqual((await service.availability({ customerId: "cus_other" })).windows[0], {
        ...availability.windows[0],
        requests: 0,
        failures: 0,
        counted_requests: 0,
        availability_percent: null,
      } as never);

      // 100 completed calls in 24 h with latencies 1..50 twice: p50 ~ 25, p99 ~ 50 (1% sketch).
      const latency = await service.latency(scope, 24);
      const m1 = latency.models[0];
      t.is(m1?.completed, 100);
      t.true(Math.abs((m1?.p50_ms ?? 0) - 25) <= 1, `p50 ${m1?.p50_ms}`);
      t.true(Math.abs((m1?.p99_ms ?? 0) - 50) <= 1, `p99 ${m1?.p99_ms}`);

      const budget = await service.errorBudget(scope, 30);
      t.like(budget.tiers[0], { tier: "99.0", failures: 12, met: false });

      const series = await service.timeseries(scope, 24, 60);
      t.is(series.buckets.length, 25);
      t.is(
        series.buckets.reduce((n, b) => n + b.requests, 0),
        102,
      );
      const fine = await service.timeseries(scope, 24, 5);
      t.is(
        fine.buckets.reduce((n, b) => n + b.requests, 0),
        102,
      );
      t.is((await service.availability("all")).windows[0]?.requests, 132);
    } finally {
      await drop();
    }
  });
}
