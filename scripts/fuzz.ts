import { parseArgs } from "node:util";
import { runFuzz } from "../test/fuzz/run-fuzz.js";

/**
 * `npm run fuzz [-- --seed N --runs N --rounds N]`: the long fuzz run (docs/fuzzing.md). Exits 1
 * on any invariant violation, printing each with its seed so it can be replayed.
 */
const { values } = parseArgs({
  options: {
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    runs: { type: "string", default: "40" },
    rounds: { type: "string", default: "5" },
  },
});
const seed = Number(values.seed);
const runs = Number(values.runs);
const result = await runFuzz({
  seed,
  runsPerOperation: runs,
  rawRuns: runs,
  envoyRuns: runs,
  rounds: Number(values.rounds),
});
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
process.stdout.write(
  [
    `seed ${seed}: ${result.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s`,
    `statuses: ${JSON.stringify(result.byStatus)}`,
    `heap after GC: ${mb(result.heapBaselineBytes)} before, ${mb(result.heapAfterBytes)} after`,
    `violations: ${result.violations.length}`,
    ...result.violations.slice(0, 50).map((v) => `  - ${v}`),
    "",
  ].join("\n"),
);
process.exit(result.violations.length === 0 ? 0 : 1);
