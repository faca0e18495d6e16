/**
 * Interleaved A/B of a streamed answer's relay under the default policy (SseRelay with the guard
 * stage's stream filters: SSE parse, per-chunk scans, hold-back, the whole-text check, re-serialise)
 * between another checkout and this one, in one process:
 *
 *   npx tsx scripts/stream-relay-ab.ts /work/wt/before [rounds=9] [ms per round=600]
 *
 * Streams: the bench's (5 pieces, every event in one upstream read, as wrk -c50 delivers it), the
 * same one event per read (paced), and a 900-character answer in 60 pieces with an e-mail address
 * and a phone number (redacted mid-stream; whole-text checks every 25%), one read per piece and
 * all in one read. Each tree's output bytes and verdicts are compared first (any difference
 * exits 1); with `--same-text`, what a client assembles from them instead
 * (scripts/stream-assembled.ts), for a change that reshapes chunks only. Printed per stream: the
 * median per relayed answer of each tree over rounds, and this tree over the other.
 */
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";
import { resolve } from "node:path";
import { FAST_PIECES } from "../bench/bench-models.js";
import { median } from "../bench/load/percentile.js";
import { assembled } from "./stream-assembled.js";
import { streamRelayTree, type StreamRelayTree } from "./stream-relay-tree.js";

const sameText = process.argv.includes("--same-text");
const args = process.argv.slice(2).filter((a) => a !== "--same-text");
const other = resolve(args[0] ?? "/work/wt/before");
const rounds = Number(args[1] ?? 9);
const roundMs = Number(args[2] ?? 600);

type Json = Record<string, unknown>;

function events(pieces: readonly string[]): string[] {
  const meta = { id: "chatcmpl-ab", object: "chat.completion.chunk", created: 7, model: "m" };
  const chunk = (delta: Json, extra: Json = {}): string =>
    `data: ${JSON.stringify({
      ...meta,
      system_fingerprint: "fp_ab",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
      usage: null,
    })}\n\n`;
  const usage = { prompt_tokens: 9, completion_tokens: pieces.length, total_tokens: 9 };
  return [
    chunk({ role: "assistant", content: "" }),
    ...pieces.map((p) => chunk({ content: p })),
    chunk({}, { finish_reason: "stop" }),
    `data: ${JSON.stringify({ ...meta, choices: [], usage })}\n\n`,
    "data: [DONE]\n\n",
  ];
}

const LONG =
  "The quarterly report shows revenue growing in every region, with the strongest quarter in " +
  "the north. Costs rose more slowly than sales, so the margin widened again. For questions, " +
  "write to finance.team@example.com or call +44 20 7946 0958 during office hours. The board " +
  "expects the same trend next year, though currency effects may weigh on the results abroad. " +
  "Hiring continued at a measured pace and the new warehouse opened on time and on budget. " +
  "Customer satisfaction scores improved for the third quarter in a row, and churn fell. " +
  "Overall the business is in good health and the outlook for the coming year remains positive, " +
  "with investment planned in tooling, training and the two new offices that open in spring. ";
const longPieces = LONG.match(/.{1,15}/gsu) ?? [];

const encode = (texts: string[]): Uint8Array[] => texts.map((t) => new TextEncoder().encode(t));
const STREAMS: Record<string, Uint8Array[]> = {
  "bench, one read": encode([events(FAST_PIECES).join("")]),
  "bench, one read per event": encode(events(FAST_PIECES)),
  "900 chars, 60 reads": encode(events(longPieces)),
  "900 chars, one read": encode([events(longPieces).join("")]),
};

const ours = await streamRelayTree(resolve(import.meta.dirname, ".."));
const theirs = await streamRelayTree(other);

let differ = false;
for (const [name, reads] of Object.entries(STREAMS)) {
  const view = (r: { out: string; verdicts: unknown[] }) =>
    sameText ? { ...r, out: assembled(r.out) } : r;
  const a = view(await theirs.relay(reads));
  const b = view(await ours.relay(reads));
  if (!isDeepStrictEqual(a, b)) {
    differ = true;
    console.log(`${name}: output or verdicts differ`, JSON.stringify(a), JSON.stringify(b));
  }
}
if (differ) process.exit(1);

async function timed(tree: StreamRelayTree, reads: Uint8Array[]): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + roundMs / 2;
  while (performance.now() < until) times.push(await tree.timedRelay(reads));
  return times;
}

console.log(`stream (median us per answer)        other   this  this/other`);
for (const [name, reads] of Object.entries(STREAMS)) {
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(median(await timed(theirs, reads)));
      b.push(median(await timed(ours, reads)));
    } else {
      b.push(median(await timed(ours, reads)));
      a.push(median(await timed(theirs, reads)));
    }
  }
  const ratio = median(b.map((v, i) => v / (a[i] as number)));
  console.log(
    `${name.padEnd(34)} ${median(a).toFixed(1).padStart(6)} ${median(b).toFixed(1).padStart(6)}  ${ratio.toFixed(3)}`,
  );
}
