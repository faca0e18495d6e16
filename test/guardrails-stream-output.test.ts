/**
 * Output guardrails on streamed and JSON answers beyond plain content: per-choice filtering (n=2),
 * held text flushed before finish_reason in the upstream's chunk shape, tool-call arguments and
 * refusals redacted (a value split across fragments too), where a stop happened recorded in the
 * audit record, and the buffered stream mode. The model backend is the fake upstream (a double).
 */
import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  await deployModel(gateway.url, gateway.adminKey, { name: "out-guarded" }, upstream.url);
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

type Json = Record<string, unknown>;
interface Choice {
  index: number;
  delta: { content?: string; refusal?: string; tool_calls?: Json[] };
  finish_reason: string | null;
}
interface Chunk {
  id: string;
  system_fingerprint?: string;
  choices: Choice[];
}

async function stream(key: string, extra: Json = {}, requestId?: string) {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...(requestId ? { "x-request-id": requestId } : {}),
    },
    body: JSON.stringify({
      model: "out-guarded",
      messages: [{ role: "user", content: "go" }],
      stream: true,
      ...extra,
    }),
  });
  const text = await res.text();
  const events = text
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map((e) => JSON.parse(e.slice(6)) as Chunk & { error?: Json });
  return { text, events, chunks: events.filter((e) => e.choices !== undefined) };
}

const textOf = (chunks: Chunk[], index: number, field: "content" | "refusal" = "content") =>
  chunks
    .flatMap((c) => c.choices)
    .filter((c) => c.index === index)
    .map((c) => c.delta[field] ?? "")
    .join("");

test.serial(
  "n=2: each choice has its own filter; held text is flushed in its own choice before its finish_reason, in the upstream's chunk shape",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    upstream.script.next({
      choices: [
        ["Write to ", "jane", ".doe@exa", "mple.com"],
        ["Call ", "+44 20 ", "7946 0958"],
      ],
    });
    const { chunks, text } = await stream(key, { n: 2 });
    t.regex(text, /data: \[DONE\]/);
    t.is(textOf(chunks, 0), "Write to [EMAIL_ADDRESS_1]");
    t.is(textOf(chunks, 1), "Call [PHONE_NUMBER_1]");
    t.false(
      text.includes("jane") || text.includes("7946"),
      "no part of a value reached the client",
    );
    for (const index of [0, 1]) {
      const mine = chunks.filter((c) => c.choices.some((x) => x.index === index));
      const finish = mine.findIndex((c) => c.choices.some((x) => x.finish_reason !== null));
      const flushed = mine.findLastIndex((c) => c.choices.some((x) => x.delta.content));
      t.true(flushed >= 0 && flushed < finish, `choice ${index}: text before its finish_reason`);
    }
    const ids = new Set(chunks.map((c) => c.id));
    t.is(ids.size, 1, "every chunk carries the upstream's id");
    t.true(chunks.every((c) => c.system_fingerprint === "fp_fake"));
    t.false(
      chunks.some((c) => c.choices.some((x) => x.delta.content === "" && !("role" in x.delta))),
      "no chunk that only carries emptied content",
    );
  },
);

test.serial(
  "tool-call arguments and refusals are output: a value split across argument fragments is redacted, streamed and JSON",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const toolCalls = [{ name: "send", arguments: ['{"to": "ja', "ne.doe@exam", 'ple.com"}'] }];
    upstream.script.next({ toolCalls });
    const streamed = await stream(key, {
      tools: [{ type: "function", function: { name: "send", parameters: { type: "object" } } }],
    });
    const args = streamed.chunks
      .flatMap((c) => c.choices)
      .flatMap((c) => c.delta.tool_calls ?? [])
      .map((tc) => (tc.function as { arguments?: string } | undefined)?.arguments ?? "")
      .join("");
    t.is(args, '{"to": "[EMAIL_ADDRESS_1]"}');
    t.false(streamed.text.includes("jane") || streamed.text.includes("exam"));

    upstream.script.next({ toolCalls });
    const json = await call(gateway.url, "POST", "/v1/chat/completions", key, {
      model: "out-guarded",
      messages: [{ role: "user", content: "go" }],
    });
    const message = (json.json.choices as { message: { tool_calls: Json[] } }[])[0]?.message;
    t.is(
      (message?.tool_calls[0]?.function as { arguments: string }).arguments,
      '{"to": "[EMAIL_ADDRESS_1]"}',
    );

    upstream.script.next({ refusal: ["Sorry, not today. Ask ", "jane.doe@", "example.com."] });
    const refused = await stream(key);
    t.is(textOf(refused.chunks, 0, "refusal"), "Sorry, not today. Ask [EMAIL_ADDRESS_1].");
    upstream.script.next({ refusal: ["Sorry, not today. Ask jane.doe@example.com."] });
    const refusedJson = await call(gateway.url, "POST", "/v1/chat/completions", key, {
      model: "out-guarded",
      messages: [{ role: "user", content: "go" }],
    });
    const refusal = (refusedJson.json.choices as { message: { refusal: string } }[])[0]?.message;
    t.is(refusal?.refusal, "Sorry, not today. Ask [EMAIL_ADDRESS_1].");
  },
);

test.serial(
  "a block mid-stream: what was sent stays sent, the stream ends with an error event, the audit record says where it stopped",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    await call(gateway.url, "POST", "/api/v1/guardrails/rules", key, {
      name: "no codes",
      kind: "keyword",
      keywords: ["launchcode"],
      action: "block",
      applies_to: "output",
    });
    upstream.script.next({ chunks: ["The answer", " is ", "the launch", "code 0000"], paceMs: 2 });
    const cut = await stream(key, {}, "stream-stop-where");
    t.is(textOf(cut.chunks, 0), "The answer is the", "released before the keyword (and its space)");
    t.is((cut.events.at(-1)?.error as { code?: string } | undefined)?.code, "custom_rule_block");
    t.notRegex(cut.text, /\[DONE\]/);
    const audit = await call(
      gateway.url,
      "GET",
      "/api/v1/audit/records?request_id=stream-stop-where",
      key,
    );
    const record = (audit.json.data as { details: Json | null }[])[0];
    t.deepEqual(record?.details, {
      stream_stopped: {
        choice: 0,
        field: "content",
        released_chars: "The answer is the".length,
        code: "custom_rule_block",
      },
    });
  },
);

test.serial(
  "stream_mode buffered holds a window before releasing anything; low_latency releases prose at once",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const pieces = ["The", " plan", " is", " ready", " and", " the", " team", " agrees", "."];
    upstream.script.next({ chunks: pieces });
    const fast = await stream(key);
    t.deepEqual(
      fast.chunks.map((c) => c.choices[0]?.delta.content).filter((c) => c),
      pieces,
      "low_latency (default): every chunk as sent",
    );
    const set = await call(gateway.url, "PATCH", "/api/v1/guardrails/policy", key, {
      stream_mode: "buffered",
    });
    t.is((set.json as { policy: { stream_mode: string } }).policy.stream_mode, "buffered");
    upstream.script.next({ chunks: pieces });
    const buffered = await stream(key);
    const contents = buffered.chunks.map((c) => c.choices[0]?.delta.content).filter((c) => c);
    t.is(contents.join(""), pieces.join(""));
    t.is(contents.length, 1, "buffered: the short answer comes out whole, before finish_reason");
  },
);

test.serial(
  "a custom regex rule's match spanning words and chunks is held until complete and redacted whole (low latency)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const rule = await call(gateway.url, "POST", "/api/v1/guardrails/rules", key, {
      name: "codenames",
      kind: "regex",
      pattern: String.raw`project\s+falcon`,
      flags: "i",
      action: "redact",
      applies_to: "output",
    });
    t.is(rule.status, 201);
    const pieces = ["Our", " project", " ", "Fal", "con", " ships", " in", " May."];
    upstream.script.next({ chunks: pieces, paceMs: 2 });
    const { chunks, text } = await stream(key);
    t.is(textOf(chunks, 0), "Our [RULE_CODENAMES] ships in May.");
    t.false(/project|Fal/i.test(text), "no part of the match sent");
    const contents = chunks.map((c) => c.choices[0]?.delta.content).filter((c) => c);
    t.deepEqual(
      contents,
      ["Our", " [RULE_CODENAMES] ships", " in", " May."],
      "text around the match flows as sent; the match goes out with the word that completed it",
    );
  },
);

test.serial(
  "a verbose_json transcription's words[] and segments go through the output policy: a value spoken as several words is redacted whole",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const spoken = "Please call me on +44 20 7946 0958 tomorrow.";
    upstream.script.next({ chunks: [spoken] });
    const form = new FormData();
    form.set("model", "out-guarded");
    form.set("response_format", "verbose_json");
    form.append("timestamp_granularities[]", "word");
    form.append("timestamp_granularities[]", "segment");
    form.set("file", new Blob([new Uint8Array(64)], { type: "audio/wav" }), "a.wav");
    const res = await fetch(`${gateway.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    t.is(res.status, 200);
    const raw = await res.text();
    const body = JSON.parse(raw) as {
      text: string;
      segments: { text: string }[];
      words: { word: string; start: number; end: number }[];
    };
    t.is(body.text, "Please call me on [PHONE_NUMBER_1] tomorrow.");
    t.is(body.segments[0]?.text, body.text);
    t.false(/7946|0958/.test(raw), "no part of the number in any field");
    t.is(body.words.map((w) => w.word).join(" "), body.text);
    const number = body.words.find((w) => w.word === "[PHONE_NUMBER_1]");
    t.truthy(number, "the number's words became one placeholder word");
    t.is(number?.start, 1.5 * (4 / 9), "it starts when the number's first word did");
    t.is(number?.end, 1.5 * (8 / 9), "and ends when its last word did");
  },
);
