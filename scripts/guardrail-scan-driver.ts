/**
 * Runs the default input policy in a loop over the bench's prompts, for profiling:
 *   node --cpu-prof --import tsx scripts/guardrail-scan-driver.ts 4k 20000
 *   valgrind --tool=callgrind node --import tsx scripts/guardrail-scan-driver.ts short 2000
 * Argument 1: "short" (the 100-character prompt) or "4k"; argument 2: calls after a warm-up.
 * Prints microseconds per call (CPU time of this process).
 */
import { evaluateInput } from "../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../dataplane/guardrails/policy/policy-schema.js";
import { PROMPT_100, prompt4k } from "../bench/sections/guardrail-scan.js";

const which = process.argv[2] ?? "short";
const calls = Number(process.argv[3] ?? 10_000);
const text = which === "4k" ? prompt4k() : PROMPT_100;
const policy = defaultPolicy();
for (let i = 0; i < Math.min(calls, 500); i++) evaluateInput(policy, [], text);
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) evaluateInput(policy, [], text);
const used = process.cpuUsage(before);
console.log(`${which}: ${((used.user + used.system) / calls).toFixed(2)} us CPU per call`);
