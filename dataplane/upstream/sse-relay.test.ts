import test from "ava";
import type { InferenceCall } from "../core/inference-call.js";
import type { StreamTextFilter } from "../core/pipeline.js";
import { KeywordPrefixes } from "../guardrails/stream/hold-back.js";
import { LowLatencyScanner } from "../guardrails/stream/low-latency-scanner.js";
import { SseRelay } from "./sse-relay.js";

type Json = Record<string, unknown>;

const callWith = (body: Json): InferenceCall => ({ body, captureContent: false }) as InferenceCall;

/** Holds everything until "." arrives, then releases it with "secret" redacted. */
function holdUntilDot(): StreamTextFilter {
  let held = "";
  let consumed = 0;
  const release = () => {
    consumed += held.length;
    const out = held.replace("secret", "[X]");
    held = "";
    return { emit: out, consumed };
  };
  return {
    push(text) {
      held += text;
      return held.includes(".") ? release() : { emit: "", consumed };
    },
    end: release,
  };
}

const event = (json: Json) => new TextEncoder().encode(`data: ${JSON.stringify(json)}\n\n`);
const meta = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 7, model: "m" };
const chunk = (index: number, delta: Json, extra: Json = {}): Json => ({
  ...meta,
  system_fingerprint: "fp_1",
  choices: [{ index, delta, logprobs: null, finish_reason: null, ...extra }],
  usage: null,
});
const logprob = (token: string) => ({ content: [{ token, logprob: -1, top_logprobs: [] }] });

function parse(out: string): Json[] {
  return out
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)) as Json);
}

test("held text goes out in its choice's own chunk before its finish_reason, with the upstream's ids; no usage key unless asked", (t) => {
  const relay = new SseRelay(callWith({}), () => holdUntilDot());
  let out = "";
  out += relay.push(event(chunk(0, { role: "assistant", content: "" })));
  out += relay.push(event(chunk(1, { role: "assistant", content: "" })));
  out += relay.push(event(chunk(0, { content: "a secret" })));
  out += relay.push(event(chunk(1, { content: "b" })));
  out += relay.push(event(chunk(0, {}, { finish_reason: "stop" })));
  out += relay.push(event(chunk(1, {}, { finish_reason: "stop" })));
  out += relay.end();
  const events = parse(out);
  t.false(
    events.some((e) => "usage" in e),
    "the usage: null the backend added is not relayed",
  );
  const choices = events.map((e) => (e.choices as Json[])[0] as Json);
  t.deepEqual(
    choices.map((c) => [c.index, (c.delta as Json).content ?? null, c.finish_reason]),
    [
      [0, "", null],
      [1, "", null],
      [0, "a [X]", null],
      [0, null, "stop"],
      [1, "b", null],
      [1, null, "stop"],
    ],
    "emptied chunks dropped, each flush before its own finish_reason",
  );
  const flush = events[2] as Json;
  t.is(flush.id, "chatcmpl-1");
  t.is(flush.system_fingerprint, "fp_1");
  t.true(out.endsWith("data: [DONE]\n\n"));
});

test("logprobs travel with their text; entries of redacted text are merged into one carrying the placeholder", (t) => {
  const relay = new SseRelay(callWith({}), () => holdUntilDot());
  let out = relay.push(
    event(chunk(0, { content: "all clear." }, { logprobs: logprob("all clear.") })),
  );
  out += relay.push(event(chunk(0, { content: "my " }, { logprobs: logprob("my ") })));
  out += relay.push(event(chunk(0, { content: "secret." }, { logprobs: logprob("secret.") })));
  out += relay.push(event(chunk(0, {}, { finish_reason: "stop" })));
  out += relay.end();
  const choices = parse(out).map((e) => (e.choices as Json[])[0] as Json);
  const tokens = choices.map((c) =>
    ((c.logprobs as { content?: { token: string }[] } | null)?.content ?? []).map((x) => x.token),
  );
  t.deepEqual(tokens[0], ["all clear."]);
  t.deepEqual(tokens[1], ["my [X]."], "no original token of the redacted value");
  t.false(out.includes("secret"));
});

test("a stream that is not JSON, or ends before its choices finished, is broken, not an empty success", (t) => {
  const notJson = new SseRelay(callWith({}), () => holdUntilDot());
  notJson.push(new TextEncoder().encode("data: {oops\n\n"));
  t.is(notJson.broken?.code, "upstream_unavailable");

  const empty = new SseRelay(callWith({}), () => holdUntilDot());
  empty.push(new TextEncoder().encode('{"id": "not an event stream"}'));
  t.false(empty.end().includes("[DONE]"));
  t.is(empty.broken?.code, "upstream_unavailable");

  const cut = new SseRelay(callWith({}), () => holdUntilDot());
  cut.push(event(chunk(0, { content: "half." })));
  t.false(cut.end().includes("[DONE]"));
  t.regex(cut.broken?.message ?? "", /ended before/);
});

test("a client that asked for usage keeps the usage chunk and usage keys", (t) => {
  const relay = new SseRelay(callWith({ stream_options: { include_usage: true } }), () =>
    holdUntilDot(),
  );
  let out = relay.push(event(chunk(0, { content: "ok." })));
  out += relay.push(event(chunk(0, {}, { finish_reason: "stop" })));
  out += relay.push(
    event({ ...meta, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
  );
  out += relay.end();
  const events = parse(out);
  t.true(events.every((e) => "usage" in e));
  t.deepEqual(events.at(-1)?.choices, []);
});

test("events that arrive in one read reach each choice's filter with that choice's text ahead, and go out as they would one read each", (t) => {
  const stream = [
    chunk(0, { role: "assistant", content: "" }),
    chunk(0, { content: "a sec" }),
    chunk(1, { content: "b." }),
    chunk(0, { content: "ret." }),
    chunk(0, {}, { finish_reason: "stop" }),
    chunk(1, {}, { finish_reason: "stop" }),
  ];
  const seen: [number, string, string | undefined][] = [];
  const relayOf = () =>
    new SseRelay(callWith({}), (part) => {
      const filter = holdUntilDot();
      return {
        push(text, ahead) {
          seen.push([part.choice, text, ahead]);
          return filter.push(text, ahead);
        },
        end: () => filter.end(),
      };
    });
  const oneRead = relayOf();
  const bytes = new TextEncoder().encode(
    stream.map((c) => `data: ${JSON.stringify(c)}\n\n`).join(""),
  );
  const together = oneRead.push(bytes) + oneRead.end();
  t.deepEqual(seen, [
    [0, "", "a secret."],
    [0, "a sec", "ret."],
    [1, "b.", ""],
    [0, "ret.", ""],
  ]);
  const apart = relayOf();
  let out = "";
  for (const c of stream) out += apart.push(event(c));
  out += apart.end();
  t.is(together, out);
  t.regex(together, /a \[X\]\./);
});

test("one read or one read per event give the same bytes for text with lone surrogates, NUL and a choice repeated in a chunk", (t) => {
  const twice: Json = {
    ...meta,
    choices: [
      { index: 0, delta: { content: "x\ud800 " }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: "\u0000y." }, logprobs: null, finish_reason: null },
    ],
  };
  const stream = [
    chunk(0, { role: "assistant", content: "" }),
    chunk(0, { content: "a \udfff sec" }),
    chunk(0, { content: "ret\u0000." }),
    twice,
    chunk(0, {}, { finish_reason: "stop" }),
  ];
  // The output guard's low-latency scanner with a keyword rule redacting "secret" (held while
  // the text's tail may be its start, as stream-guard.ts holds keyword rules).
  const keyword = new KeywordPrefixes(["secret"], true);
  const scanning = (): StreamTextFilter => {
    const scanner = new LowLatencyScanner({
      scan: (text) => ({
        spans: [...text.matchAll(/secret/g)].map((m) => ({
          start: m.index,
          end: m.index + m[0].length,
          label: "SECRET",
          replacement: "[X]",
        })),
      }),
      holdFrom: (text, from) => keyword.holdFrom(text, from),
    });
    return { push: (text, ahead) => scanner.push(text, ahead), end: () => scanner.end() };
  };
  const relayOf = () => new SseRelay(callWith({}), scanning);
  const oneRead = relayOf();
  const together =
    oneRead.push(
      new TextEncoder().encode(stream.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")),
    ) + oneRead.end();
  const apart = relayOf();
  let out = "";
  for (const c of stream) out += apart.push(event(c));
  out += apart.end();
  t.is(together, out);
  t.regex(together, /\[X\]/, "the value split over chunks is redacted");
  t.notRegex(together, /sec/, "no part of it goes out");
  t.true(together.endsWith("data: [DONE]\n\n"));
});
