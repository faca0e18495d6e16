/**
 * Proves a change to the streamed-answer path changes nothing a caller gets: every text of the
 * shared eval sets is streamed as a model's answer through another checkout's relay and this
 * one's (SseRelay with the guard stage's stream filters, scripts/stream-relay-tree.ts), and the
 * bytes relayed and the verdicts recorded are compared.
 *
 *   EVAL_DIR=/work/shared/eval npx tsx scripts/stream-guard-compare.ts /work/wt/before [every=1]
 *
 * Each text is streamed under the default policy (low latency) and in buffered mode, cut two
 * ways: 4-character pieces, one upstream read per event; and word by word, every event in one
 * read (as a loaded gateway reads a fast stream). `every` takes every n-th text only. Exit 1 on
 * any difference; the first few are printed. With `--same-text`, what a client assembles from the
 * bytes is compared instead (scripts/stream-assembled.ts), for a change that reshapes chunks: the
 * same text, or, for a stream both trees stopped, one text a prefix of the other's by at most the
 * 256 characters the output guard holds (what was held when the stop came; counted apart); the
 * verdicts are compared either way.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { evalDir } from "./train-dev-sets.js";
import { assembled } from "./stream-assembled.js";
import { streamRelayTree } from "./stream-relay-tree.js";

type RelayResult = { out: string; verdicts: unknown[] };

const sameText = process.argv.includes("--same-text");
const args = process.argv.slice(2).filter((a) => a !== "--same-text");
const other = resolve(args[0] ?? "/work/wt/before");
const every = Number(args[1] ?? 1);
const DONE = "data: [DONE]\n\n";

/** The most text the output guard holds back (LowLatencyScanner's maxHold). */
const MAX_HOLD = 256;

const heldApart = (x: string, y: string): boolean =>
  x.length <= y.length ? y.startsWith(x) && y.length - x.length <= MAX_HOLD : heldApart(y, x);

/** Whether `b` gives a client what `a` does (see above); "held" when a stop came on other text. */
function same(a: RelayResult, b: RelayResult): boolean | "held" {
  if (!sameText) return isDeepStrictEqual(a, b);
  if (!isDeepStrictEqual(a.verdicts, b.verdicts)) return false;
  const [x, y] = [assembled(a.out), assembled(b.out)];
  if (isDeepStrictEqual(x, y)) return true;
  const stoppedBoth = !a.out.endsWith(DONE) && !b.out.endsWith(DONE);
  const choices = new Set([...Object.keys(x.content), ...Object.keys(y.content)].map(Number));
  const held = [...choices].every((i) => heldApart(x.content[i] ?? "", y.content[i] ?? ""));
  return stoppedBoth && held && isDeepStrictEqual(x.other, y.other) ? "held" : false;
}

function evalTexts(): string[] {
  const texts: string[] = [];
  const dir = evalDir();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort())
    for (const line of readFileSync(resolve(dir, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const row = JSON.parse(line) as { text?: unknown };
      if (typeof row.text === "string") texts.push(row.text);
    }
  return texts.filter((_, i) => i % every === 0);
}

function events(pieces: readonly string[]): string[] {
  const meta = { id: "chatcmpl-cmp", object: "chat.completion.chunk", created: 7, model: "m" };
  const chunk = (delta: object, extra: object = {}): string =>
    `data: ${JSON.stringify({
      ...meta,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
    })}\n\n`;
  return [
    chunk({ role: "assistant", content: "" }),
    ...pieces.map((p) => chunk({ content: p })),
    chunk({}, { finish_reason: "stop" }),
    "data: [DONE]\n\n",
  ];
}

const encode = (texts: string[]): Uint8Array[] => texts.map((t) => new TextEncoder().encode(t));
const cuts: Record<string, (text: string) => Uint8Array[]> = {
  "4 characters, a read each": (text) => encode(events(text.match(/[\s\S]{1,4}/gu) ?? [])),
  "words, one read": (text) => encode([events(text.match(/\S*\s*/gu) ?? []).join("")]),
};
const policies: Record<string, Record<string, unknown>> = {
  default: {},
  buffered: { stream_mode: "buffered" },
};

const texts = evalTexts();
let compared = 0;
let differ = 0;
const differByCut = new Map<string, number>();
let redacted = 0;
let stopped = 0;
let held = 0;
for (const [policyName, policy] of Object.entries(policies)) {
  const theirs = await streamRelayTree(other, policy);
  const ours = await streamRelayTree(resolve(import.meta.dirname, ".."), policy);
  for (const [cutName, cut] of Object.entries(cuts))
    for (const text of texts) {
      const reads = cut(text);
      const a = await theirs.relay(reads);
      const b = await ours.relay(reads);
      compared += 1;
      if (b.out.includes("_1]")) redacted += 1;
      if (!b.out.endsWith(DONE)) stopped += 1;
      const verdict = same(a, b);
      if (verdict === "held") held += 1;
      if (verdict !== false) continue;
      differ += 1;
      differByCut.set(
        `${policyName}, ${cutName}`,
        (differByCut.get(`${policyName}, ${cutName}`) ?? 0) + 1,
      );
      if (differ <= 5)
        console.log(`${policyName}, ${cutName}: ${JSON.stringify(text.slice(0, 80))} differs`);
    }
}
console.log(
  `${compared} streams compared (${redacted} with a value redacted, ${stopped} stopped), ${differ} differ${sameText ? ` in what a client assembles; ${held} stopped with other text held` : ""}`,
);
for (const [where, count] of differByCut) console.log(`  ${where}: ${count} differ`);
process.exit(differ > 0 ? 1 : 0);
