import test from "ava";
import { startFakeUpstream } from "../test/fakes/fake-openai-upstream.js";
import { startBaselineProxy, type BodyRelay } from "./baseline-proxy.js";
import { deliveredAsSent, readChatStream } from "./load/sse-events.js";

const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };

async function setup(relay: BodyRelay, options: Parameters<typeof startFakeUpstream>[0] = {}) {
  const upstream = await startFakeUpstream(options);
  const proxy = await startBaselineProxy(upstream.url, relay);
  return {
    upstream,
    proxy,
    close: async () => {
      await proxy.close();
      await upstream.close();
    },
  };
}

for (const relay of ["pipeline", "pipe"] as const) {
  test(`baseline proxy, ${relay} (against the fake upstream, a test double): relays every SSE chunk as sent`, async (t) => {
    const { upstream, proxy, close } = await setup(relay);
    t.teardown(close);
    const pieces = ["a", "b c", "", "d"].map((p, i) => `${i}:${p}`);
    upstream.script.next({ chunks: pieces, paceMs: 5 });
    const res = await fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    t.is(res.headers.get("content-type"), "text/event-stream");
    const reading = await readChatStream(res.body as AsyncIterable<Uint8Array>);
    t.true(deliveredAsSent(reading, pieces));
    t.deepEqual(upstream.requests[0]?.body, { ...chat, stream: true });
  });

  test(`baseline proxy, ${relay} (against the fake upstream, a test double): a client disconnect aborts the upstream request`, async (t) => {
    const { upstream, proxy, close } = await setup(relay, {
      defaultBehaviour: { chunkCount: 100, paceMs: 20 },
    });
    t.teardown(close);
    const controller = new AbortController();
    const res = await fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...chat, stream: true }),
      signal: controller.signal,
    });
    await (res.body as ReadableStream<Uint8Array>).getReader().read();
    controller.abort();
    await upstream.whenAborted(1);
    t.is(upstream.abortedRequests(), 1);
  });

  test(`baseline proxy, ${relay} (against the fake upstream, a test double): streams an upload and answers 502 when the upstream hangs up`, async (t) => {
    const { upstream, proxy, close } = await setup(relay);
    t.teardown(close);
    const form = new FormData();
    form.set("model", "w");
    form.set("file", new Blob([Buffer.alloc(200_000)]), "a.wav");
    const res = await fetch(`${proxy.url}/audio/transcriptions`, { method: "POST", body: form });
    t.deepEqual(await res.json(), { text: "fake transcription of 200000 bytes" });
    t.is(upstream.requests[0]?.upload?.files[0]?.bytes, 200_000);
    upstream.script.next({ hangUp: "before-headers" });
    const failed = await fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat),
    });
    t.is(failed.status, 502);
  });

  test(`baseline proxy, ${relay} (against the fake upstream, a test double): an upstream that hangs up mid-stream ends the client's response too`, async (t) => {
    const { upstream, proxy, close } = await setup(relay);
    t.teardown(close);
    upstream.script.next({ chunks: ["a", "b", "c", "d"], paceMs: 5, hangUp: "mid-stream" });
    const res = await fetch(`${proxy.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...chat, stream: true }),
    });
    t.is(res.status, 200);
    // The relayed stream fails (or ends short) instead of hanging: no [DONE] reaches the client.
    const text = await res.text().catch(() => "failed");
    t.false(text.includes("[DONE]"));
  });
}
