/**
 * A client that goes away stops the backend's work: the gateway aborts its request to the model
 * backend (the scripted fake OpenAI-compatible upstream, a TEST DOUBLE), whether the answer was
 * still being waited for or already streaming; and the gateway serves the next call as before.
 */
import test from "ava";
import type { FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { modelBehindGateway, type ModelBehindGateway } from "./support/inference-fixture.js";
import type { RunningApp } from "./support/test-app.js";

let fixture: ModelBehindGateway;
let gateway: RunningApp;
let upstream: FakeUpstream;
let key: string;

test.before(async () => {
  fixture = await modelBehindGateway("abortable", "standard");
  ({ gateway, upstream, key } = fixture);
});
test.after.always(() => fixture?.close());

function chat(stream: boolean, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "abortable",
      messages: [{ role: "user", content: "tell me a long story" }],
      stream,
    }),
    signal,
  });
}

test.serial(
  "a client that leaves mid-stream makes the gateway abort the backend's stream",
  async (t) => {
    upstream.script.next({ chunkCount: 500, paceMs: 10 });
    const before = upstream.abortedRequests();
    const controller = new AbortController();
    const res = await chat(true, controller.signal);
    t.is(res.status, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await upstream.whenAborted(before + 1);
    t.is(upstream.abortedRequests(), before + 1);
  },
);

test.serial(
  "a client that leaves while the answer is awaited makes the gateway abort the backend's request",
  async (t) => {
    upstream.script.next({ delayMs: 3_000 });
    const before = upstream.abortedRequests();
    const controller = new AbortController();
    const pending = chat(false, controller.signal).catch(() => undefined);
    while (upstream.activeRequests() === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await pending;
    await upstream.whenAborted(before + 1);
    t.is(upstream.abortedRequests(), before + 1);
  },
);

test.serial("after clients left, the next call is answered in full", async (t) => {
  const res = await chat(false);
  t.is(res.status, 200);
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  t.true((body.choices[0]?.message.content ?? "").length > 0);
});

test.serial(
  "calls whose clients left are finished: none stays counted in progress, so a lone caller's audit write is still waited for actively",
  async (t) => {
    // The aborted calls' post-call work (metering, audit) may still be running just after.
    const until = Date.now() + 5_000;
    while (gateway.app.ctx.pipeline.callsInProgress > 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    t.is(gateway.app.ctx.pipeline.callsInProgress, 0);
  },
);
