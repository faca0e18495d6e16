/**
 * `npm run bench`: runs every section in order, prints each report, and writes them all as JSON to
 * .bench/last.json. Sections are modules under bench/sections/; add new ones to SECTIONS.
 * Options: BENCH_ROUNDS, BENCH_SECONDS (see bench/config/bench-options.ts).
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
import type { Section, SectionReport } from "./sections/section.js";
import { batchesSection } from "./sections/batches.js";

const SECTIONS: Section[] = [
  inferencePathSection,
  guardrailScanSection,
  limitsOverheadSection,
  envoyAdaptersSection,
  (await import("./sections/cache.js")).cacheSection,
  batchesSection,
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
for (const section of SECTIONS) {
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
