import test from "ava";
import { runFuzz } from "./fuzz/run-fuzz.js";

// A small seeded run of the fuzz harness (docs/fuzzing.md); `npm run fuzz` is the long run.
test("fuzz (fake upstream, played Envoy): every documented operation, raw bodies, uploads and Envoy messages keep the invariants", async (t) => {
  const result = await runFuzz({ seed: 20261123, runsPerOperation: 4, rawRuns: 8, envoyRuns: 8 });
  t.log(`${result.requests} requests; statuses ${JSON.stringify(result.byStatus)}`);
  t.deepEqual(result.violations, []);
  t.true(result.requests >= 250, "the run covered every operation");
  // Memory returns near its baseline: generous, the suite shares the heap with its own bookkeeping.
  t.true(
    result.heapAfterBytes < result.heapBaselineBytes + 64 * 1024 * 1024,
    `heap ${result.heapBaselineBytes} -> ${result.heapAfterBytes}`,
  );
});
