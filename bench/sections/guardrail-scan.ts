/**
 * Guardrail scan cost on the hot path: a 4 KB prompt through every built-in detector (the same
 * evaluateInput the gateway runs), per detector family, against a baseline measured in the same
 * run: one pass of a single linear regex over the same text; and a 100-character prompt through
 * the default input policy. Targets (issue 13): 100 characters <= 20 us, 4 KB <= 250 us.
 * Each figure is the best of many short batches (the least disturbed by other load).
 */
import { performance } from "node:perf_hooks";
import { detectPii } from "../../dataplane/guardrails/pii/detect.js";
import { evaluateInput } from "../../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../../dataplane/guardrails/policy/policy-schema.js";
import { injectionVerdict } from "../../dataplane/guardrails/injection/injection-verdict.js";
import { safetyVerdict } from "../../dataplane/guardrails/safety/safety-verdict.js";
import type { Section, SectionReport } from "./section.js";

/**
 * A 4 KB prompt of ordinary business text with a few identifiers in it, as the gateway receives it:
 * parsed from a JSON body, so a flat string (a slice of a concatenated string reads every
 * character through one more indirection, which made the scan look up to 2x slower than it is).
 */
export function prompt4k(): string {
  const sentences = [
    "Please summarise the quarterly report for the board and highlight the main risks.",
    "The customer asked whether the invoice can be sent to billing@example.com by Friday.",
    "Our support line is 415-555-0132 and the office is open from nine to five.",
    "Compare the two proposals on cost, delivery time and the vendor's track record.",
    "Draft a polite reply that thanks them for their patience and proposes a call next week.",
  ];
  let text = "";
  for (let i = 0; text.length < 4096; i++) text += `${sentences[i % sentences.length]} `;
  return JSON.parse(JSON.stringify(text.slice(0, 4096))) as string;
}

/** A 100-character prompt of plain text, the size of most chat turns. */
export const PROMPT_100 =
  "Write a short poem about the autumn leaves falling in the park near the river; make it rhyme.";

/**
 * Best time per call over batches of 10 calls for `seconds`, after a warm-up of at least 200 calls
 * and one second: on a loaded machine the optimising compiler runs late, and a shorter warm-up
 * measured unoptimised code (evaluateInput at 3-7 ms per 4 KB instead of 0.4).
 */
function timeIt(fn: () => void, seconds: number): { usPerOp: number; ops: number } {
  const warm = performance.now() + 1000;
  for (let i = 0; i < 200 || performance.now() < warm; i++) fn();
  const until = performance.now() + seconds * 1000;
  let ops = 0;
  let best = Infinity;
  while (performance.now() < until) {
    const start = performance.now();
    for (let i = 0; i < 10; i++) fn();
    best = Math.min(best, ((performance.now() - start) * 1000) / 10);
    ops += 10;
  }
  return { usPerOp: best, ops };
}

/**
 * Median time of one call right after 32 MiB of other memory was read: the scan's code and tables
 * evicted from the CPU's caches, as the rest of a request's work leaves them in the gateway. The
 * warm figures above are the floor; a scan in the gateway costs between the two (docs/benchmarks.md,
 * "Issue 13, third pass: guardrail scans batched per event-loop turn").
 */
function timeCold(fn: () => void, calls: number): number {
  const other = new Float64Array(4 << 20);
  let sink = 0;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    for (let j = 0; j < other.length; j += 8) sink += other[j]!;
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return (times[times.length >> 1] ?? 0) + (sink === 0 ? 0 : 1);
}

export const guardrailScanSection: Section = {
  name: "guardrail scan (4 KB prompt, in process)",
  async run({ options, log }): Promise<SectionReport> {
    const text = prompt4k();
    const policy = defaultPolicy();
    const seconds = Math.max(1, options.throughputSeconds);
    const email = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
    const rows: { name: string; usPerOp: number }[] = [];
    const measures: [string, () => void][] = [
      ["baseline: one linear regex pass", () => void text.match(email)],
      ["PII detectors", () => void detectPii(text)],
      ["prompt injection", () => void injectionVerdict(text, 0.5)],
      ["content safety", () => void safetyVerdict(text, 0.5)],
      ["all (evaluateInput, default policy)", () => void evaluateInput(policy, [], text)],
      ["all, 100-character prompt", () => void evaluateInput(policy, [], PROMPT_100)],
    ];
    for (const [name, fn] of measures) {
      log(`guardrail scan: ${name}`);
      rows.push({ name, ...timeIt(fn, seconds) });
    }
    const baseline = rows[0]?.usPerOp ?? 1;
    const all = rows.at(-2)?.usPerOp ?? 0;
    const short = rows.at(-1)?.usPerOp ?? 0;
    log("guardrail scan: caches cold");
    const cold4k = timeCold(() => void evaluateInput(policy, [], text), 200);
    const coldShort = timeCold(() => void evaluateInput(policy, [], PROMPT_100), 200);
    const mbPerS = (us: number) => text.length / 1e6 / (us / 1e6);
    return {
      name: this.name,
      table: [
        ["scan", "us/op", "MB/s", "x baseline"],
        ...rows.map((r, i) => [
          r.name,
          r.usPerOp.toFixed(1),
          i === rows.length - 1 ? "-" : mbPerS(r.usPerOp).toFixed(2),
          i === rows.length - 1 ? "-" : (r.usPerOp / baseline).toFixed(1),
        ]),
        ["all, caches cold (median)", cold4k.toFixed(1), mbPerS(cold4k).toFixed(2), "-"],
        ["all, 100-character prompt, caches cold (median)", coldShort.toFixed(1), "-", "-"],
      ],
      ratios: {
        all_detectors_ms_per_4kb: all / 1000,
        all_detectors_mb_per_s: mbPerS(all),
        all_vs_baseline: all / baseline,
        all_us_per_100_chars: short,
        all_cold_us_per_4kb: cold4k,
        all_cold_us_per_100_chars: coldShort,
      },
      targets: [
        {
          name: "default input policy on a 4 KB prompt (us)",
          value: Number(all.toFixed(1)),
          goal: "<= 250",
          met: all <= 250,
        },
        {
          name: "default input policy on a 100-character prompt (us)",
          value: Number(short.toFixed(1)),
          goal: "<= 20",
          met: short <= 20,
        },
      ],
      notes: [
        "CPU time in this process; the machine is shared, so compare with the baseline row of the same run.",
        "Targets are read from the warm rows (best of batches); the cold rows (32 MiB of other memory read before each call) show what an evicted cache adds.",
      ],
      data: rows,
    };
  },
};
