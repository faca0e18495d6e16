import test from "ava";
import OpenAI, { toFile } from "openai";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
let client: OpenAI;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "chat-model", aliases: ["gpt-4o-mini"] },
    upstream.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "embed-model", modality: "embedding" },
    upstream.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "whisper-model", modality: "audio" },
    upstream.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "premium", required_tier: "business" },
    upstream.url,
  );
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.adminKey, maxRetries: 0 });
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

test.serial(
  "openai SDK against a fake upstream: non-streaming chat returns the backend's answer and usage",
  async (t) => {
    const res = await client.chat.completions.create({
      model: "chat-model",
      messages: [{ role: "user", content: "Say hello" }],
      max_tokens: 20,
    });
    t.is(res.object, "chat.completion");
    t.true((res.choices[0]?.message.content ?? "").length > 0);
    t.true((res.usage?.total_tokens ?? 0) > 0);
    const seen = upstream.requests.at(-1);
    t.is((seen?.body as { model: string }).model, "chat-model");
    t.is(
      seen?.headers.authorization,
      undefined,
      "the caller's gateway key never reaches the backend",
    );
  },
);

test.serial(
  "openai SDK against a fake upstream: an alias routes to its model; unknown fields pass through",
  async (t) => {
    await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
      // @ts-expect-error an extension field the SDK does not know; the backend may
      top_k: 7,
    });
    const body = upstream.requests.at(-1)?.body as { model: string; top_k: number };
    t.is(body.model, "chat-model");
    t.is(body.top_k, 7);
  },
);

test.serial(
  "openai SDK against a fake upstream: with output guardrails off, streaming delivers every chunk as the backend sent it",
  async (t) => {
    const off = await call(gateway.url, "PATCH", "/api/v1/guardrails/policy", gateway.adminKey, {
      pii: { enabled: false },
      safety: { enabled: false },
    });
    t.is(off.status, 200);
    upstream.script.next({ chunks: ["Hel", "lo", ", wor", "ld", "!"], paceMs: 5 });
    const stream = await client.chat.completions.create({
      model: "chat-model",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });
    const pieces: string[] = [];
    let usageSeen = false;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta?.content;
      if (piece) pieces.push(piece);
      if (chunk.usage) usageSeen = true;
    }
    t.deepEqual(pieces, ["Hel", "lo", ", wor", "ld", "!"]);
    t.false(
      usageSeen,
      "the usage chunk the gateway asked for is hidden from a client that did not ask",
    );
    const sent = upstream.requests.at(-1)?.body as { stream_options: { include_usage: boolean } };
    t.true(sent.stream_options.include_usage, "the gateway asks the backend for usage");
  },
);

test.serial(
  "openai SDK against a fake upstream: a client that asks for stream usage gets it",
  async (t) => {
    const stream = await client.chat.completions.create({
      model: "chat-model",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage = 0;
    for await (const chunk of stream) usage += chunk.usage?.total_tokens ?? 0;
    t.true(usage > 0);
  },
);

test.serial("openai SDK against a fake upstream: embeddings", async (t) => {
  const res = await client.embeddings.create({ model: "embed-model", input: ["a", "b"] });
  t.is(res.data.length, 2);
  t.true((res.data[0]?.embedding.length ?? 0) > 0);
});

test.serial(
  "openai SDK against a fake upstream: transcription streams the upload through",
  async (t) => {
    const audio = Buffer.alloc(300_000, 7);
    const res = await client.audio.transcriptions.create({
      model: "whisper-model",
      file: await toFile(audio, "speech.wav", { type: "audio/wav" }),
      language: "en",
    });
    t.is(typeof res.text, "string");
    const upload = upstream.requests.at(-1)?.upload;
    t.is(upload?.files[0]?.bytes, 300_000, "the backend received every byte");
    t.is(upload?.fields.model, "whisper-model");
    t.is(upload?.fields.language, "en");
  },
);

test.serial("openai SDK: models.list shows routable models and their aliases", async (t) => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  for (const id of ["chat-model", "gpt-4o-mini", "embed-model", "whisper-model", "premium"])
    t.true(ids.includes(id), id);
});

test.serial("openai SDK: error classes match the spec's statuses", async (t) => {
  const notFound = await t.throwsAsync(
    client.chat.completions.create({
      model: "no-such-model",
      messages: [{ role: "user", content: "x" }],
    }),
    { instanceOf: OpenAI.NotFoundError },
  );
  t.is((notFound?.error as { code?: string })?.code, "model_not_found");

  const freeKey = await customerKey(gateway.url, gateway.adminKey, "free");
  const freeClient = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: freeKey, maxRetries: 0 });
  const denied = await t.throwsAsync(
    freeClient.chat.completions.create({
      model: "premium",
      messages: [{ role: "user", content: "x" }],
    }),
    { instanceOf: OpenAI.PermissionDeniedError },
  );
  t.is((denied?.error as { code?: string })?.code, "tier_restricted");

  const badKey = new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-proj-notours",
    maxRetries: 0,
  });
  await t.throwsAsync(badKey.models.list(), { instanceOf: OpenAI.AuthenticationError });

  const invalid = await t.throwsAsync(
    client.chat.completions.create({ model: "chat-model", messages: [] }),
    { instanceOf: OpenAI.UnprocessableEntityError },
  );
  t.regex(invalid?.message ?? "", /messages/);

  upstream.script.next({ status: 500 });
  const calls = upstream.requests.length;
  const upstreamDown = await t.throwsAsync(
    client.chat.completions.create({
      model: "chat-model",
      messages: [{ role: "user", content: "x" }],
    }),
    { instanceOf: OpenAI.InternalServerError },
  );
  t.is(upstreamDown?.status, 500, "the backend's status is kept");
  t.regex(upstreamDown?.message ?? "", /fake upstream scripted status 500/);
  t.is(upstream.requests.length, calls + 1, "a 500 is answered, not retried");
});

test.serial(
  "openai SDK against a fake upstream: a stream cut by the backend ends with an error event",
  async (t) => {
    upstream.script.next({
      chunks: ["one", "two", "three", "four"],
      paceMs: 20,
      hangUp: "mid-stream",
    });
    const stream = await client.chat.completions.create({
      model: "chat-model",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const err = await t.throwsAsync(async () => {
      for await (const _chunk of stream) {
        // consume
      }
    });
    t.regex(err?.message ?? "", /interrupted|backend/);
  },
);

test.serial("a client that disconnects mid-stream cancels the upstream request", async (t) => {
  const before = upstream.abortedRequests();
  upstream.script.next({ chunkCount: 50, paceMs: 30 });
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: "chat-model", messages: [{ role: "user", content: "long" }], stream: true },
    { signal: controller.signal },
  );
  let n = 0;
  try {
    for await (const _chunk of stream) {
      if (++n === 3) controller.abort();
    }
  } catch {
    // the SDK may surface the abort as an error; either way the client is gone
  }
  t.true(n >= 3 && n < 50, "the client stopped reading early");
  await upstream.whenAborted(before + 1);
  t.true(upstream.abortedRequests() > before);
});
