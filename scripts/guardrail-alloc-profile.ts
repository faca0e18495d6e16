/**
 * Where the default policy allocates on a short text: V8's sampling heap profiler (objects
 * collected by minor and major GCs included) over many calls, self bytes per call by function.
 * `npx tsx scripts/guardrail-alloc-profile.ts [input|output] [text]`.
 */
import { Session } from "node:inspector/promises";
import { evaluateInput, evaluateOutput } from "../dataplane/guardrails/policy/evaluate.js";
import { defaultPolicy } from "../dataplane/guardrails/policy/policy-schema.js";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const direction = process.argv[2] ?? "input";
const text = process.argv[3] ?? "Summarise the quarterly report in two sentences.";
const evaluate = direction === "output" ? evaluateOutput : evaluateInput;
const policy = defaultPolicy();
const calls = 20000;
for (let i = 0; i < 5000; i++) evaluate(policy, [], text);
const session = new Session();
session.connect();
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 0; i < calls; i++) evaluate(policy, [], text);
const { profile } = (await session.post("HeapProfiler.stopSampling")) as {
  profile: { head: ProfileNode };
};
const bySite = new Map<string, number>();
let total = 0;
function walk(node: ProfileNode, caller = ""): void {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || "(anonymous)"} ${url.replace(/^.*\/dataplane\//, "")}:${lineNumber + 1}`;
  const site = url === "" ? `${name} <- ${caller}` : name;
  if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child, url === "" ? caller : name);
}
walk(profile.head);
console.log(`total ${(total / calls).toFixed(0)} bytes/call`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 40))
  console.log(`${(bytes / calls).toFixed(0).padStart(7)}  ${site}`);
