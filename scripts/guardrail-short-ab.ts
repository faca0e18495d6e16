/**
 * Interleaved A/B of the default policy on the gateway's short texts, between another checkout and
 * this one, in one process:
 * `npx tsx --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 scripts/guardrail-short-ab.ts /work/wt/before [rounds] [ms]`.
 * Cases: evaluateInput on the bench's 49-character chat prompt and the 100-character prompt,
 * evaluateOutput on the bench's 70-character answer (FAST_PIECES joined). For each: warm (batches
 * of 20 calls, alternating trees; median ratio over rounds of the minima and the medians), cold
 * (32 MiB of other memory read before each single call, trees alternating; median of each) and
 * bytes allocated per call (used heap before and after 1,000 calls with no GC in between; needs
 * --expose-gc and a young generation large enough to hold them). Verdicts are compared first.
 */
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";
import { getHeapStatistics } from "node:v8";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as ours from "../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../dataplane/guardrails/policy/policy-schema.js";
import { PROMPT_100 } from "../bench/sections/guardrail-scan.js";
import { FAST_PIECES } from "../bench/bench-models.js";

type Evaluate = typeof ours.evaluateInput;
type Tree = { input: Evaluate; output: Evaluate };

const other = resolve(process.argv[2] ?? "/work/wt/before");
const rounds = Number(process.argv[3] ?? 5);
const roundMs = Number(process.argv[4] ?? 800);
const theirs = (await import(
  pathToFileURL(`${other}/dataplane/guardrails/policy/evaluate.ts`).href
)) as typeof ours;
const trees: [Tree, Tree] = [
  { input: theirs.evaluateInput, output: theirs.evaluateOutput },
  { input: ours.evaluateInput, output: ours.evaluateOutput },
];
const policy = defaultPolicy();
const collect = (globalThis as { gc?: () => void }).gc;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Case {
  name: string;
  text: string;
  pick: (tree: Tree) => Evaluate;
}

const cases: Case[] = [
  {
    name: "input, 49-char prompt",
    text: "Summarise the quarterly report in two sentences.",
    pick: (t) => t.input,
  },
  { name: "input, PROMPT_100", text: PROMPT_100, pick: (t) => t.input },
  { name: "output, 70-char answer", text: FAST_PIECES.join(""), pick: (t) => t.output },
];

const BATCH = 20;
function timed(fn: Evaluate, text: string, batch: number): number {
  const start = performance.now();
  for (let i = 0; i < batch; i++) fn(policy, [], text);
  return ((performance.now() - start) * 1000) / batch;
}

function warmRound(c: Case): { a: number[]; b: number[] } {
  const [fa, fb] = [c.pick(trees[0]), c.pick(trees[1])];
  const a: number[] = [];
  const b: number[] = [];
  const until = performance.now() + roundMs;
  for (let k = 0; performance.now() < until; k++) {
    if (k % 2 === 0) {
      a.push(timed(fa, c.text, BATCH));
      b.push(timed(fb, c.text, BATCH));
    } else {
      b.push(timed(fb, c.text, BATCH));
      a.push(timed(fa, c.text, BATCH));
    }
  }
  return { a, b };
}

const otherMemory = new Float64Array(4 << 20);
let sink = 0;
function coldCall(fn: Evaluate, text: string): number {
  for (let j = 0; j < otherMemory.length; j += 8) sink += otherMemory[j]!;
  return timed(fn, text, 1);
}

function cold(c: Case, calls: number): [number, number] {
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < calls; k++) {
    if (k % 2 === 0) {
      a.push(coldCall(c.pick(trees[0]), c.text));
      b.push(coldCall(c.pick(trees[1]), c.text));
    } else {
      b.push(coldCall(c.pick(trees[1]), c.text));
      a.push(coldCall(c.pick(trees[0]), c.text));
    }
  }
  return [median(a), median(b)];
}

/**
 * Bytes allocated per call: used heap delta over `calls` calls, the least of three runs without a
 * GC (a run with one is retried, up to ten runs).
 */
function bytesPerCall(fn: Evaluate, text: string, calls: number): number {
  if (collect === undefined) return NaN;
  let least = NaN;
  let clean = 0;
  for (let attempt = 0; attempt < 10 && clean < 3; attempt++) {
    collect();
    const before = getHeapStatistics().used_heap_size;
    let previous = before;
    let collected = false;
    for (let i = 0; i < calls; i++) {
      fn(policy, [], text);
      if ((i & 63) === 0) {
        const now = getHeapStatistics().used_heap_size;
        if (now < previous) collected = true;
        previous = now;
      }
    }
    const after = getHeapStatistics().used_heap_size;
    if (!collected && after >= previous) {
      clean++;
      const bytes = (after - before) / calls;
      if (!(bytes >= least)) least = bytes;
    }
  }
  return least;
}

for (const c of cases) {
  const same = isDeepStrictEqual(
    c.pick(trees[0])(policy, [], c.text),
    c.pick(trees[1])(policy, [], c.text),
  );
  if (!same) throw new Error(`verdicts differ on ${c.name}`);
}
for (const c of cases) {
  const warm = performance.now() + 1000;
  while (performance.now() < warm) for (const t of trees) timed(c.pick(t), c.text, BATCH);
}
for (const c of cases) {
  const minRatios: number[] = [];
  const medRatios: number[] = [];
  let lastMin: [number, number] = [0, 0];
  for (let r = 0; r < rounds; r++) {
    const { a, b } = warmRound(c);
    lastMin = [Math.min(...a), Math.min(...b)];
    minRatios.push(lastMin[1] / lastMin[0]);
    medRatios.push(median(b) / median(a));
  }
  const [coldA, coldB] = cold(c, 150);
  const bytes = trees.map((t) => bytesPerCall(c.pick(t), c.text, 1000));
  console.log(
    `${c.name} (${c.text.length} chars): warm min ${lastMin[0].toFixed(2)} -> ${lastMin[1].toFixed(2)} us, ` +
      `ratio of minima ${median(minRatios).toFixed(3)}, of medians ${median(medRatios).toFixed(3)}; ` +
      `cold median ${coldA.toFixed(1)} -> ${coldB.toFixed(1)} us (${(coldB / coldA).toFixed(3)}); ` +
      `bytes/call ${bytes[0]!.toFixed(0)} -> ${bytes[1]!.toFixed(0)}` +
      (sink === 1 ? "" : ""),
  );
}
