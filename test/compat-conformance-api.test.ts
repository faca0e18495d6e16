/**
 * Conformance of the rest of the compatible API with the official `openai` SDK (embeddings,
 * models, transcriptions, typed errors, aborts, retries), under the default guardrail policy and
 * with guardrails off: both must observe the same.
 */
import test from "ava";
import OpenAI, { toFile } from "openai";
import { both, startConformance, type Conformance } from "./support/conformance.js";

let conf: Conformance;
const model = "conf-chat";
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Hi" }];

test.before(async () => {
  conf = await startConformance();
});
test.after.always(async () => {
  await conf?.close();
});

test.serial("SDK conformance (fake upstream): embeddings as floats and base64", async (t) => {
  const result = await both(t, conf, async (client) => {
    const floats = await client.embeddings.create({
      model: "conf-embed",
      input: ["a", "b"],
      encoding_format: "float",
    });
    // Without encoding_format the SDK asks for base64 and decodes it.
    const decoded = await client.embeddings.create({ model: "conf-embed", input: ["a", "b"] });
    const asked = conf.upstream.requests.at(-1)?.body as { encoding_format?: string };
    return { floats: floats.data, decoded: decoded.data, asked: asked.encoding_format };
  });
  t.is(result.asked, "base64");
  t.is(result.floats.length, 2);
  for (const [i, item] of result.decoded.entries()) {
    const expected = result.floats[i]?.embedding ?? [];
    t.is(item.embedding.length, expected.length);
    item.embedding.forEach((v, k) => t.true(Math.abs(v - (expected[k] ?? 0)) < 1e-6));
  }
});

test.serial("SDK conformance (fake upstream): models list and retrieve", async (t) => {
  const result = await both(t, conf, async (client) => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    const one = await client.models.retrieve("conf-chat");
    const missing = await client.models.retrieve("no-such-model").catch((e: unknown) => e);
    return {
      ids: ids.sort(),
      one: { id: one.id, object: one.object, owned_by: one.owned_by },
      missing: missing instanceof OpenAI.NotFoundError ? missing.status : "not a 404",
    };
  });
  t.deepEqual(result.ids, ["conf-chat", "conf-embed", "conf-whisper"]);
  t.deepEqual(result.one, { id: "conf-chat", object: "model", owned_by: "evident" });
  t.is(result.missing, 404);
});

test.serial(
  "SDK conformance (fake upstream): transcription formats relayed with the upstream's content type; repeated fields kept",
  async (t) => {
    const file = async () => toFile(Buffer.alloc(2048, 3), "speech.wav", { type: "audio/wav" });
    const result = await both(t, conf, async (client) => {
      const base = { model: "conf-whisper" } as const;
      const json = await client.audio.transcriptions.create({ ...base, file: await file() });
      const text = await client.audio.transcriptions.create({
        ...base,
        file: await file(),
        response_format: "text",
      });
      const srt = await client.audio.transcriptions.create({
        ...base,
        file: await file(),
        response_format: "srt",
      });
      const vtt = await client.audio.transcriptions.create({
        ...base,
        file: await file(),
        response_format: "vtt",
      });
      const verbose = await client.audio.transcriptions.create({
        ...base,
        file: await file(),
        response_format: "verbose_json",
        timestamp_granularities: ["word", "segment"],
      });
      const fields = conf.upstream.requests.at(-1)?.upload?.allFields ?? {};
      return {
        json: json.text,
        text,
        srt,
        vtt,
        verbose,
        granularities: fields["timestamp_granularities[]"],
      };
    });
    const words = "fake transcription of 2048 bytes";
    t.is(result.json, words);
    t.is(result.text, words);
    t.regex(
      String(result.srt),
      /^1\n00:00:00,000 --> 00:00:01,500\nfake transcription of 2048 bytes/,
    );
    t.regex(String(result.vtt), /^WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nfake transcription/);
    t.is((result.verbose as { segments: unknown[] }).segments.length, 1);
    t.deepEqual(result.granularities, ["word", "segment"]);
  },
);

test.serial(
  "SDK conformance (fake upstream): typed errors for upstream 400, 429 and 500 keep status, param, code and Retry-After",
  async (t) => {
    const result = await both(t, conf, async (client) => {
      const before = conf.upstream.requests.length;
      conf.upstream.script
        .next({
          status: 400,
          json: {
            error: {
              message: "temperature too high",
              type: "invalid_request_error",
              param: "temperature",
              code: null,
            },
          },
        })
        .next({ status: 429, headers: { "retry-after": "7" } })
        .next({ status: 500 });
      const bad = await client.chat.completions
        .create({ model, messages })
        .catch((e: unknown) => e);
      const slow = await client.chat.completions
        .create({ model, messages })
        .catch((e: unknown) => e);
      const down = await client.chat.completions
        .create({ model, messages })
        .catch((e: unknown) => e);
      const describe = (e: unknown) =>
        e instanceof OpenAI.APIError
          ? {
              kind: e.constructor.name,
              status: e.status,
              message: e.message,
              param: e.param,
              code: e.code,
              retryAfter: e.headers?.get("retry-after") ?? null,
              requestId: typeof e.requestID === "string" && e.requestID.length > 0,
            }
          : "not an APIError";
      return {
        errors: [bad, slow, down].map(describe),
        upstreamCalls: conf.upstream.requests.length - before,
      };
    });
    const [bad, slow, down] = result.errors as Exclude<(typeof result.errors)[number], string>[];
    t.like(bad, {
      kind: "BadRequestError",
      status: 400,
      param: "temperature",
      code: null,
      requestId: true,
    });
    t.regex(bad?.message ?? "", /temperature too high/);
    t.like(slow, { kind: "RateLimitError", status: 429, retryAfter: "7" });
    t.like(down, { kind: "InternalServerError", status: 500 });
    t.regex(down?.message ?? "", /fake upstream scripted status 500/);
    t.is(result.upstreamCalls, 3, "maxRetries 0: exactly one upstream call each, none retried");
  },
);

test.serial("SDK conformance (fake upstream): abort mid-stream reaches the upstream", async (t) => {
  const result = await both(t, conf, async (client) => {
    const before = conf.upstream.abortedRequests();
    conf.upstream.script.next({ chunkCount: 60, paceMs: 20 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model, messages, stream: true },
      { signal: controller.signal },
    );
    let n = 0;
    try {
      for await (const _chunk of stream) if (++n === 3) controller.abort();
    } catch {
      // the SDK surfaces the abort as an error
    }
    const timeout = new Promise<false>((r) => setTimeout(() => r(false), 5000).unref());
    const seen = await Promise.race([
      conf.upstream.whenAborted(before + 1).then(() => true),
      timeout,
    ]);
    return { stoppedEarly: n >= 3 && n < 60, upstreamSawDisconnect: seen };
  });
  t.deepEqual(result, { stoppedEarly: true, upstreamSawDisconnect: true });
});

test.serial(
  "SDK conformance (fake upstream): the SDK's default retries are the only ones: an upstream 500 makes maxRetries + 1 upstream calls",
  async (t) => {
    const calls = await both(t, conf, async (_client, mode) => {
      const client = new OpenAI({
        baseURL: `${conf.gateway.url}/v1`,
        apiKey: conf.keys[mode],
        maxRetries: 2,
      });
      const before = conf.upstream.requests.length;
      conf.upstream.script.next({ status: 500 }).next({ status: 500 }).next({ status: 500 });
      const error = await client.chat.completions
        .create({ model, messages })
        .catch((e: unknown) => e);
      return {
        status: error instanceof OpenAI.APIError ? error.status : "no error",
        upstreamCalls: conf.upstream.requests.length - before,
      };
    });
    t.deepEqual(calls, { status: 500, upstreamCalls: 3 });
  },
);

test.serial(
  "upstream answers that are broken: a body cut mid-way is 502; a non-SSE answer to stream:true is an error event (fake upstream)",
  async (t) => {
    const result = await both(t, conf, async (client) => {
      conf.upstream.script.next({ hangUp: "mid-stream" });
      const cut = await client.chat.completions
        .create({ model, messages })
        .catch((e: unknown) => e);
      conf.upstream.script.next({ raw: { contentType: "application/json", body: '{"id":"x"}' } });
      const notSse = await client.chat.completions
        .create({ model, messages, stream: true })
        .then(async (stream) => {
          for await (const _chunk of stream) {
            // consume
          }
          return "empty success";
        })
        .catch((e: unknown) => e);
      conf.upstream.script.next({
        raw: { contentType: "text/event-stream", body: "data: {not json\n\n" },
      });
      const garbage = await client.chat.completions
        .create({ model, messages, stream: true })
        .then(async (stream) => {
          for await (const _chunk of stream) {
            // consume
          }
          return "empty success";
        })
        .catch((e: unknown) => e);
      const code = (e: unknown) =>
        e instanceof OpenAI.APIError
          ? `${e.status ?? "event"} ${(e.error as { code?: string } | undefined)?.code}`
          : String(e);
      return [cut, notSse, garbage].map(code);
    });
    t.deepEqual(result, [
      "502 upstream_unavailable",
      "event upstream_unavailable",
      "event upstream_unavailable",
    ]);
  },
);
