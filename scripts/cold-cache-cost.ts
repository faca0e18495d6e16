/**
 * What per-call work costs when the CPU's caches hold none of it, as at concurrency 1 on a
 * two-core machine shared with the load generator and the upstream (docs/benchmarks.md, "Issue 13,
 * twenty-second pass"). Each step runs warm (back to back) and cold (after `EVICT_MB` MiB are
 * written, which pushes the step's code and tables out of the caches), interleaved:
 *
 *   npx tsx scripts/cold-cache-cost.ts [calls=3000]
 *
 * Steps: the default input policy on the bench's chat prompt, the default output policy on a short
 * answer, and the chat body's schema check. Printed: the median microseconds of each, warm and
 * cold (the first third of the calls is the warm-up, left out).
 */
import { performance } from "node:perf_hooks";
import { chatBody, FAST_MODEL } from "../bench/bench-models.js";
import { median } from "../bench/load/percentile.js";
import { chatCompletionRequestWithPrompt } from "../dataplane/adapters/http/compat/compat-schemas.js";
import { parseOrThrow } from "../dataplane/adapters/http/validation.js";
import { evaluateInput, evaluateOutput } from "../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../dataplane/guardrails/policy/policy-schema.js";
import { createPlaceholderMap } from "../dataplane/guardrails/pii/redact.js";

const calls = Number(process.argv[2] ?? 3000);
const evictBytes = Number(process.env.EVICT_MB ?? 8) * 1024 * 1024;
const policy = defaultPolicy();
const rawBody = chatBody(FAST_MODEL, false);
/** The bench's own chat prompt, taken from its body so the two never drift apart. */
const prompt = (JSON.parse(rawBody) as { messages: { content: string }[] }).messages[0]!.content;
const answer =
  "Revenue grew 12% in the quarter while costs held flat. Margins improved as a result.";

const steps: Record<string, () => unknown> = {
  "input policy (48 characters)": () =>
    evaluateInput(policy, [], prompt, { placeholders: createPlaceholderMap() }),
  "output policy (84 characters)": () =>
    evaluateOutput(policy, [], answer, { placeholders: createPlaceholderMap() }),
  "chat body schema check": () =>
    parseOrThrow(chatCompletionRequestWithPrompt, JSON.parse(rawBody), "body"),
};

const evictee = new Uint8Array(evictBytes);
function evict(): void {
  for (let i = 0; i < evictee.length; i += 64) evictee[i] = (evictee[i]! + 1) & 255;
}

const times = new Map<string, { warm: number[]; cold: number[] }>();
for (const name of Object.keys(steps)) times.set(name, { warm: [], cold: [] });
for (let i = 0; i < calls; i++) {
  for (const [name, step] of Object.entries(steps)) {
    const t = times.get(name)!;
    step();
    let start = performance.now();
    step();
    t.warm.push(performance.now() - start);
    evict();
    start = performance.now();
    step();
    t.cold.push(performance.now() - start);
  }
}

/** The median in µs, the first third (the warm-up) left out. */
const afterWarmUp = (xs: number[]): string =>
  (median(xs.slice(Math.floor(xs.length / 3))) * 1000).toFixed(1);
console.log(`${calls} calls, ${evictBytes / 1024 / 1024} MiB written before each cold call`);
for (const [name, t] of times) {
  console.log(
    `${name.padEnd(32)} warm ${afterWarmUp(t.warm).padStart(6)} us   cold ${afterWarmUp(t.cold).padStart(6)} us`,
  );
}
