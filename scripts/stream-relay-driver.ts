/**
 * Relays the bench's streamed answer (5 pieces, every event in one upstream read, as a gateway
 * under wrk -c50 reads it) under the default policy in a loop, for profiling and instruction
 * counts of one checkout's stream path (scripts/stream-relay-tree.ts):
 *   node --cpu-prof --import tsx scripts/stream-relay-driver.ts . 40000
 *   valgrind --tool=callgrind node --import tsx scripts/stream-relay-driver.ts /work/wt/before 2000
 * Argument 1: the checkout (default this one); argument 2: answers relayed after a warm-up.
 * Prints microseconds of CPU per answer (this process, the request guard's scan included).
 */
import { resolve } from "node:path";
import { FAST_PIECES } from "../bench/bench-models.js";
import { streamRelayTree } from "./stream-relay-tree.js";

const tree = resolve(process.argv[2] ?? resolve(import.meta.dirname, ".."));
const answers = Number(process.argv[3] ?? 10_000);

const meta = { id: "chatcmpl-drv", object: "chat.completion.chunk", created: 7, model: "m" };
const chunk = (delta: object, extra: object = {}): string =>
  `data: ${JSON.stringify({
    ...meta,
    system_fingerprint: "fp_drv",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
    usage: null,
  })}\n\n`;
const usage = { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 };
const stream = [
  chunk({ role: "assistant", content: "" }),
  ...FAST_PIECES.map((piece) => chunk({ content: piece })),
  chunk({}, { finish_reason: "stop" }),
  `data: ${JSON.stringify({ ...meta, choices: [], usage })}\n\n`,
  "data: [DONE]\n\n",
].join("");
const reads = [new TextEncoder().encode(stream)];

const relays = await streamRelayTree(tree);
for (let i = 0; i < Math.min(answers, 500); i++) await relays.relay(reads);
const before = process.cpuUsage();
for (let i = 0; i < answers; i++) await relays.relay(reads);
const used = process.cpuUsage(before);
console.log(`${((used.user + used.system) / answers).toFixed(2)} us CPU per answer`);
