/**
 * `npm run bench`: runs every section in order, prints each report, and writes them all as JSON to
 * .bench/last.json. Sections are modules under bench/sections/; add new ones to SECTIONS.
 * Options: BENCH_ROUNDS, BENCH_SECONDS, BENCH_SECTIONS, BENCH_SOAK_SECONDS, BENCH_QUICK (see
 * bench/config/bench-options.ts). A section is added by one line in SECTIONS: its key and module.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { benchOptionsFromProcess } from "./config/bench-options.js";
import { formatReport } from "./report/format-report.js";
import { inferencePathSection } from "./sections/inference-path.js";
import { envoyAdaptersSection } from "./sections/envoy-adapters.js";
import { guardrailScanSection } from "./sections/guardrail-scan.js";
import { limitsOverheadSection } from "./sections/limits-overhead.js";
import { pacedStreamSection } from "./sections/paced-stream.js";
import type { Section, SectionReport } from "./sections/section.js";
import { batchesSection } from "./sections/batches.js";
import { soakSection } from "./sections/soak.js";
import { wrkThroughputSection } from "./sections/wrk-throughput.js";

/** Key (for BENCH_SECTIONS) -> section, in the order they run. */
const SECTIONS: [string, Section][] = [
  ["wrk", wrkThroughputSection],
  ["inference", inferencePathSection],
  ["guardrails", guardrailScanSection],
  ["limits", limitsOverheadSection],
  ["envoy", envoyAdaptersSection],
  ["cache", (await import("./sections/cache.js")).cacheSection],
  ["batches", batchesSection],
  ["soak", soakSection],
  ["analytics", (await import("./sections/analytics.js")).analyticsSection],
  ["paced-stream", pacedStreamSection],
  ["rag-ingest", (await import("./sections/rag-ingest.js")).ragIngestSection],
];

const options = benchOptionsFromProcess();
const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};
const started = new Date();
const loadBefore = loadavg();
log(
  `${options.rounds} rounds, ${options.throughputSeconds} s per throughput run, ${cpus().length} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
);

const reports: SectionReport[] = [];
for (const [key, section] of SECTIONS) {
  if (options.sections !== undefined && !options.sections.includes(key)) continue;
  log(`section: ${section.name}`);
  const report = await section.run({ options, log });
  reports.push(report);
  process.stdout.write(`${formatReport(report)}\n\n`);
}

const result = {
  started: started.toISOString(),
  seconds: Math.round((Date.now() - started.getTime()) / 100) / 10,
  node: process.version,
  cpus: cpus().length,
  loadavg_before: loadBefore,
  loadavg_after: loadavg(),
  options,
  sections: reports,
};
await mkdir(dirname(options.outputFile), { recursive: true });
await writeFile(options.outputFile, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${options.outputFile} (${result.seconds} s)`);
