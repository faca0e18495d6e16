import test from "ava";
import { Readable } from "node:stream";
import OpenAI, { toFile } from "openai";
import { Pool } from "undici";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { readMultipart } from "./fakes/fake-openai-upstream-multipart.js";

const KEY = "Bearer sk-test-secret";

async function post(upstream: FakeUpstream, path: string, body: unknown, signal?: AbortSignal) {
  return fetch(`${upstream.url}${path}`, {
    method: "POST",
    headers: { authorization: KEY, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

/** The `data:` payloads of an SSE body, in order, with the time each one was read. */
async function readEvents(res: Response): Promise<{ data: string; at: number }[]> {
  const events: { data: string; at: number }[] = [];
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (block.startsWith("data: ")) events.push({ data: block.slice(6), at: performance.now() });
    }
  }
  return events;
}

function contentOf(data: string): string | undefined {
  const parsed = JSON.parse(data) as { choices: { delta: { content?: string } }[] };
  return parsed.choices[0]?.delta.content;
}

const chat = {
  model: "fake-model",
  messages: [{ role: "user" as const, content: "hello there friend" }],
};

test("fake upstream (test double): JSON chat answer has usage; the request is recorded with authorization redacted", async (t) => {
  const upstream = await startFakeUpstream({ defaultChunkCount: 3 });
  t.teardown(() => upstream.close());
  const res = await post(upstream, "/chat/completions", { ...chat, extra_field: 7 });
  t.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  t.is(body.object, "chat.completion");
  t.deepEqual(body.usage, { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
  t.is((body.choices as { message: { content: string } }[])[0]?.message.content, "tok0 tok1 tok2 ");
  t.is(upstream.requests.length, 1);
  t.like(upstream.requests[0], { method: "POST", path: "/v1/chat/completions" });
  t.deepEqual(upstream.requests[0]?.body, { ...chat, extra_field: 7 });
  t.is(upstream.requests[0]?.headers.authorization, "[redacted]");
});

test("fake upstream (test double): keeps the authorization value only when asked", async (t) => {
  const upstream = await startFakeUpstream({ recordAuthorization: true });
  t.teardown(() => upstream.close());
  await (await post(upstream, "/chat/completions", chat)).text();
  t.is(upstream.requests[0]?.headers.authorization, KEY);
});

test("fake upstream (test double): SSE stream like the real API: role chunk, each scripted chunk in order, paced, finish, usage, [DONE]", async (t) => {
  const upstream = await startFakeUpstream();
  t.teardown(() => upstream.close());
  upstream.script.next({ chunks: ["Hel", "lo", " wor", "ld"], paceMs: 40 });
  const sentAt = performance.now();
  const res = await post(upstream, "/chat/completions", {
    ...chat,
    stream: true,
    stream_options: { include_usage: true },
  });
  t.is(res.headers.get("content-type"), "text/event-stream");
  const events = await readEvents(res);
  t.is(events.at(-1)?.data, "[DONE]");
  const role = JSON.parse(events[0]?.data ?? "{}") as { choices: { delta: unknown }[] };
  t.deepEqual(role.choices[0]?.delta, { role: "assistant", content: "" });
  const contents = events.slice(1, 5).map((e) => contentOf(e.data));
  t.deepEqual(contents, ["Hel", "lo", " wor", "ld"]);
  const finish = JSON.parse(events[5]?.data ?? "{}") as { choices: { finish_reason: string }[] };
  t.is(finish.choices[0]?.finish_reason, "stop");
  const usage = JSON.parse(events[6]?.data ?? "{}") as { choices: unknown[]; usage: unknown };
  t.deepEqual(usage.choices, []);
  t.deepEqual(usage.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  t.is(events.length, 8);
  // Pacing is a lower bound only: at least three 40 ms pauses come before the last chunk. Timed
  // from the request (a busy client reading late can only make it longer), not between two
  // chunks (a late read of the first one would shorten the gap).
  t.true((events[4]?.at ?? 0) - sentAt >= 3 * 40 - 5);
});

test("fake upstream (test double): no usage chunk unless include_usage, and usage:false omits it", async (t) => {
  const upstream = await startFakeUpstream({ defaultChunkCount: 2 });
  t.teardown(() => upstream.close());
  const plain = await readEvents(
    await post(upstream, "/chat/completions", { ...chat, stream: true }),
  );
  t.is(plain.length, 5); // role chunk, 2 content chunks, finish chunk, [DONE]
  t.false(
    plain.some((e) => e.data.includes('"usage"')),
    "no usage key unless asked",
  );
  upstream.script.next({ usage: false });
  const asked = { ...chat, stream: true, stream_options: { include_usage: true } };
  const omitted = await readEvents(await post(upstream, "/chat/completions", asked));
  t.false(omitted.some((e) => e.data.includes('"usage"')));
  upstream.script.next({ usage: false });
  const json = (await (await post(upstream, "/chat/completions", chat)).json()) as object;
  t.false("usage" in json);
});

test("fake upstream (test double): scripted 500 and custom JSON are used once each, in order", async (t) => {
  const upstream = await startFakeUpstream();
  t.teardown(() => upstream.close());
  upstream.script
    .next({ status: 500 })
    .next({ status: 429, json: { error: { code: "slow_down" } } });
  t.is(upstream.script.pending(), 2);
  const first = await post(upstream, "/chat/completions", chat);
  t.is(first.status, 500);
  t.is(((await first.json()) as { error: { type: string } }).error.type, "server_error");
  const second = await post(upstream, "/chat/completions", chat);
  t.is(second.status, 429);
  t.deepEqual(await second.json(), { error: { code: "slow_down" } });
  t.is((await post(upstream, "/chat/completions", chat)).status, 200);
  t.is(upstream.script.pending(), 0);
});

test("fake upstream (test double): hang-up before headers fails the request; mid-stream cuts the stream in half", async (t) => {
  const upstream = await startFakeUpstream();
  t.teardown(() => upstream.close());
  upstream.script.next({ hangUp: "before-headers" });
  await t.throwsAsync(post(upstream, "/chat/completions", chat));
  upstream.script.next({ hangUp: "mid-stream", chunkCount: 6 });
  const res = await post(upstream, "/chat/completions", { ...chat, stream: true });
  t.is(res.status, 200);
  const seen: string[] = [];
  const reading = (async () => {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>)
      seen.push(Buffer.from(chunk).toString());
  })();
  await t.throwsAsync(reading);
  t.is(seen.join("").split("data: ").length - 1, 4, "role chunk and half of the content");
  t.false(seen.join("").includes("[DONE]"));
  t.is(upstream.abortedRequests(), 0, "the fake's own hang-ups are not client aborts");
});

test("fake upstream (test double): a client that disconnects mid-stream is counted as aborted", async (t) => {
  const upstream = await startFakeUpstream({ defaultBehaviour: { chunkCount: 50, paceMs: 20 } });
  t.teardown(() => upstream.close());
  const controller = new AbortController();
  const res = await post(
    upstream,
    "/chat/completions",
    { ...chat, stream: true },
    controller.signal,
  );
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  t.is(upstream.activeRequests(), 1);
  controller.abort();
  await upstream.whenAborted(1);
  t.is(upstream.abortedRequests(), 1);
});

test("fake upstream (test double): embeddings are deterministic per input, as floats or base64", async (t) => {
  const upstream = await startFakeUpstream({ embeddingDimensions: 4 });
  t.teardown(() => upstream.close());
  const floats = (await (
    await post(upstream, "/embeddings", { model: "emb", input: ["a b", "c", "a b"] })
  ).json()) as { data: { embedding: number[] }[]; usage: { prompt_tokens: number } };
  t.is(floats.data.length, 3);
  t.is(floats.data[0]?.embedding.length, 4);
  t.deepEqual(floats.data[0]?.embedding, floats.data[2]?.embedding);
  t.notDeepEqual(floats.data[0]?.embedding, floats.data[1]?.embedding);
  t.is(floats.usage.prompt_tokens, 5);
  const encoded = (await (
    await post(upstream, "/embeddings", { model: "emb", input: "c", encoding_format: "base64" })
  ).json()) as { data: { embedding: string }[] };
  const bytes = Buffer.from(encoded.data[0]?.embedding ?? "", "base64");
  const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 4));
  decoded.forEach((v, i) => t.true(Math.abs(v - (floats.data[1]?.embedding[i] ?? NaN)) < 1e-6));
});

test("fake upstream (test double): transcription counts every uploaded byte and records the form fields", async (t) => {
  const upstream = await startFakeUpstream();
  t.teardown(() => upstream.close());
  const audio = Buffer.alloc(3 * 1024 * 1024 + 17, 0x2d); // dashes, like boundary text
  const form = new FormData();
  form.set("model", "whisper-fake");
  form.set("language", "en");
  form.set("file", new Blob([audio], { type: "audio/wav" }), "clip.wav");
  const res = await fetch(`${upstream.url}/audio/transcriptions`, { method: "POST", body: form });
  t.deepEqual(await res.json(), { text: `fake transcription of ${audio.length} bytes` });
  const upload = upstream.requests[0]?.upload;
  t.deepEqual(upload?.fields, { model: "whisper-fake", language: "en" });
  t.deepEqual(upload?.files, [
    { field: "file", filename: "clip.wav", contentType: "audio/wav", bytes: audio.length },
  ]);
});

test("fake upstream (test double): the multipart reader finds boundaries split across any chunk edge", async (t) => {
  const boundary = "XyZ";
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n` +
      `\r\n--XyAB--Xy\r\n\r\n--${boundary}--\r\n`,
  );
  const oneByteChunks = Readable.from(Array.from(body, (b) => Buffer.from([b])));
  const summary = await readMultipart(oneByteChunks, boundary);
  t.deepEqual(summary.fields, { model: "m1" });
  t.is(summary.files[0]?.bytes, "\r\n--XyAB--Xy\r\n".length);
  t.is(summary.totalBytes, body.length);
});

test("fake upstream (test double): the official openai SDK can use all four endpoints", async (t) => {
  const upstream = await startFakeUpstream({ models: ["fake-model", "emb"] });
  t.teardown(() => upstream.close());
  const client = new OpenAI({ baseURL: upstream.url, apiKey: "sk-test" });
  const completion = await client.chat.completions.create({
    ...chat,
    messages: [{ role: "user", content: "hi" }],
  });
  t.is(completion.usage?.prompt_tokens, 1);
  const stream = await client.chat.completions.create({ ...chat, stream: true as const });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  t.is(text, "tok0 tok1 tok2 tok3 tok4 ");
  const embeddings = await client.embeddings.create({ model: "emb", input: "hello" });
  t.is(embeddings.data[0]?.embedding.length, 8);
  const file = await toFile(Buffer.alloc(1000), "a.wav", { type: "audio/wav" });
  const transcription = await client.audio.transcriptions.create({ model: "whisper", file });
  t.is(transcription.text, "fake transcription of 1000 bytes");
  const models = await client.models.list();
  t.deepEqual(
    models.data.map((m) => m.id),
    ["fake-model", "emb"],
  );
});

test("fake upstream (test double): counts accepted connections, so keep-alive reuse is visible", async (t) => {
  const upstream = await startFakeUpstream();
  t.teardown(() => upstream.close());
  const pool = new Pool(new URL(upstream.url).origin, { connections: 1 });
  t.teardown(() => pool.close());
  for (let i = 0; i < 3; i += 1) {
    const res = await pool.request({ method: "GET", path: "/v1/models" });
    await res.body.text();
  }
  t.is(upstream.connectionsAccepted(), 1);
  const other = new Pool(new URL(upstream.url).origin, { connections: 1 });
  await (await other.request({ method: "GET", path: "/v1/models" })).body.text();
  await other.close();
  t.is(upstream.connectionsAccepted(), 2);
});
