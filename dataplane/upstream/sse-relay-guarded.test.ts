/**
 * The default output guard (the guard stage's stream filters, low-latency mode) on a streamed
 * answer that arrives in one read from the upstream together with its finish_reason, as a fast
 * backend's answer reaches a loaded gateway: nothing can grow past the read, so each chunk goes out
 * as the upstream sent it, a value redacted in place; one read per event holds the digits' tails.
 */
import test from "ava";
import { memberCaller } from "../../test/support/member-caller.js";
import { newInferenceCall } from "../core/inference-call.js";
import type { GuardConfigService } from "../guardrails/enforcement/guard-config.js";
import { guardStages } from "../guardrails/enforcement/guard-stages.js";
import { defaultPolicy } from "../guardrails/policy/policy-schema.js";
import { SseRelay } from "./sse-relay.js";

const service = {
  forCall: async () => ({ policy: defaultPolicy(), rules: [] }),
} as unknown as GuardConfigService;

const meta = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 7, model: "m" };
const event = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ ...meta, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

function upstreamEvents(pieces: readonly string[]): string[] {
  return [
    event({ role: "assistant", content: "" }),
    ...pieces.map((content) => event({ content })),
    event({}, "stop"),
    "data: [DONE]\n\n",
  ];
}

/** Nothing checked on a part: its text as it comes (the relay needs a filter per part). */
const passThrough = { push: (text: string) => ({ emit: text }), end: () => ({ emit: "" }) };

/** The events through the guard: all in one read, or one read each. */
async function relayed(events: readonly string[], oneRead: boolean): Promise<string> {
  const { request, response } = guardStages(service);
  const call = newInferenceCall({
    requestId: "req-1",
    endpoint: "chat.completions",
    caller: memberCaller("cus_1", { keyId: "key_1" }),
    requestedModel: "m",
    body: { model: "m", messages: [{ role: "user", content: "Count the pieces." }], stream: true },
    stream: true,
    startedAt: 0,
  });
  await request.beforeForward?.(call);
  const relay = new SseRelay(
    call,
    (part) => response.openStreamFilter?.(call, part) ?? passThrough,
  );
  const encode = (text: string) => new TextEncoder().encode(text);
  const reads = oneRead ? [events.join("")] : events;
  let out = "";
  for (const read of reads) out += relay.push(encode(read));
  return out + relay.end();
}

/** Each relayed chunk's content (undefined for a chunk without), in order. */
const deltas = (out: string): (string | undefined)[] =>
  out
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] }).choices)
    .filter((choices) => choices.length > 0)
    .map((choices) => choices[0]?.delta.content);

const contentOf = (out: string): string => deltas(out).join("");

test("a one-read answer with its finish goes out byte for byte: no chunk rewritten or added", async (t) => {
  const events = upstreamEvents(["fast piece 0; ", "fast piece 1; ", "fast piece 2; "]);
  const together = await relayed(events, true);
  t.is(together, events.join(""));
  const apart = await relayed(events, false);
  t.not(apart, together, "one read per event holds each digit until the next piece");
  t.is(contentOf(apart), contentOf(together));
});

test("in a one-read answer a value is redacted in its own chunk; the others go out as sent", async (t) => {
  const pieces = ["Write to ", "jane.doe@example.com", " or call ", "+44 20 7946 0958", " today."];
  const together = await relayed(upstreamEvents(pieces), true);
  t.deepEqual(deltas(together), [
    "",
    "Write to ",
    "[EMAIL_ADDRESS_1]",
    " or call ",
    "[PHONE_NUMBER_1]",
    " today.",
    undefined,
  ]);
  t.is(contentOf(await relayed(upstreamEvents(pieces), false)), contentOf(together));
});

test("lone surrogates and NUL in a one-read answer go out as the upstream sent them, and a value among them is still redacted", async (t) => {
  const pieces = ["x\ud800 ", "\u0000 mail ", "jane.doe@example.com", "\udfff\u0000", " end\ud83d"];
  const events = upstreamEvents(pieces);
  const together = await relayed(events, true);
  t.deepEqual(deltas(together), [
    "",
    "x\ud800 ",
    "\u0000 mail ",
    "[EMAIL_ADDRESS_1]",
    "\udfff\u0000",
    " end\ud83d",
    undefined,
  ]);
  t.false(together.includes("jane.doe"));
  t.is(contentOf(await relayed(events, false)), contentOf(together));
});
