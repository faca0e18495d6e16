/**
 * Interleaved A/B of the default input policy between another checkout and this one, in one
 * process: `npx tsx scripts/guardrail-scan-ab.ts /work/wt/before [rounds] [ms per round]`.
 * Each round alternates single calls (4 KB prompt) or batches of 5 (100-character prompt) of the
 * two trees and reports the minimum and the median per call of each, and their ratios (this tree
 * over the other). Prompts: the bench's 4 KB and 100-character ones, and a plain 4 KB prompt
 * without identifiers. Each tree's verdicts on the prompts are compared first.
 */
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as ours from "../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../dataplane/guardrails/policy/policy-schema.js";
import { PROMPT_100, prompt4k } from "../bench/sections/guardrail-scan.js";

type Evaluate = typeof ours.evaluateInput;

const other = resolve(process.argv[2] ?? "/work/wt/before");
const rounds = Number(process.argv[3] ?? 7);
const roundMs = Number(process.argv[4] ?? 1000);
const theirs = (await import(
  pathToFileURL(`${other}/dataplane/guardrails/policy/evaluate.ts`).href
)) as typeof ours;
const policy = defaultPolicy();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(fn: Evaluate, text: string, batch: number): number {
  const start = performance.now();
  for (let i = 0; i < batch; i++) fn(policy, [], text);
  return ((performance.now() - start) * 1000) / batch;
}

function round(text: string, batch: number): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  const until = performance.now() + roundMs;
  for (let k = 0; performance.now() < until; k++) {
    // Alternate which goes first, so neither always runs right after the other.
    if (k % 2 === 0) {
      a.push(timed(theirs.evaluateInput, text, batch));
      b.push(timed(ours.evaluateInput, text, batch));
    } else {
      b.push(timed(ours.evaluateInput, text, batch));
      a.push(timed(theirs.evaluateInput, text, batch));
    }
  }
  return { a, b };
}

/**
 * A second 4 KB prompt, with no identifiers, digits or e-mail addresses (so no leetspeak view and
 * no masked text): a check that a change helps text in general, not the bench's prompt.
 */
function plainPrompt4k(): string {
  const sentences = [
    "We are planning the migration of the billing service to the new cluster over the summer.",
    "Could you outline the risks, the order of the steps and who should sign off on each one?",
    "Keep in mind that the support team needs a week of notice before any customer-facing change.",
    "Write it as a short memo for the engineering leads, with a table of owners and open questions.",
  ];
  let text = "";
  for (let i = 0; text.length < 4096; i++) text += `${sentences[i % sentences.length]} `;
  return JSON.parse(JSON.stringify(text.slice(0, 4096))) as string;
}

const cases: [string, string, number][] = [
  ["4 KB", prompt4k(), 1],
  ["100 chars", PROMPT_100, 5],
  ["4 KB plain", plainPrompt4k(), 1],
];
for (const [name, text] of cases) {
  const same = isDeepStrictEqual(
    theirs.evaluateInput(policy, [], text),
    ours.evaluateInput(policy, [], text),
  );
  if (!same) throw new Error(`verdicts differ on the ${name} prompt`);
}
for (const [, text, batch] of cases) {
  const warm = performance.now() + 1500;
  while (performance.now() < warm) {
    timed(theirs.evaluateInput, text, batch);
    timed(ours.evaluateInput, text, batch);
  }
}
for (const [name, text, batch] of cases) {
  const minRatios: number[] = [];
  const medRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const { a, b } = round(text, batch);
    const [minA, minB, medA, medB] = [Math.min(...a), Math.min(...b), median(a), median(b)];
    minRatios.push(minB / minA);
    medRatios.push(medB / medA);
    console.log(
      `${name} round ${r + 1}: min ${minA.toFixed(1)} -> ${minB.toFixed(1)} us (${(minB / minA).toFixed(3)}), ` +
        `median ${medA.toFixed(1)} -> ${medB.toFixed(1)} us (${(medB / medA).toFixed(3)}), ${a.length} calls each`,
    );
  }
  console.log(
    `${name}: median ratio of minima ${median(minRatios).toFixed(3)}, of medians ${median(medRatios).toFixed(3)}`,
  );
}
