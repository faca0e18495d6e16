/**
 * The backend response handling (undici dispatch, our body stream) against the scripted fake
 * OpenAI-compatible upstream (a TEST DOUBLE for a model backend) and, for what the fake cannot do,
 * a plain HTTP server started here.
 */
import test from "ava";
import { getEventListeners, once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { startFakeUpstream, type FakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import { readUpstreamBody } from "./upstream-failure.js";
import { dispatchRequest, UpstreamBody } from "./upstream-response.js";

const MAX = 16 * 1024 * 1024;

let upstream: FakeUpstream;
const agent = new Agent({ connections: 4, pipelining: 1, headersTimeout: 5_000 });
test.before(async () => {
  upstream = await startFakeUpstream();
});
test.after.always(async () => {
  await agent.close();
  await upstream.close();
});

const chat = (stream: boolean) =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], stream });

function post(stream: boolean, signal?: AbortSignal, base = upstream.url) {
  const url = new URL(`${base}/chat/completions`);
  return dispatchRequest(
    agent,
    {
      origin: url.origin,
      path: url.pathname,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chat(stream),
    },
    signal,
  );
}

/** A server whose handler the test writes; resolves with its URL. */
async function server(handle: (res: ServerResponse) => void): Promise<{ url: string; s: Server }> {
  const s = createServer((req, res) => {
    req.resume();
    req.on("end", () => handle(res));
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, s };
}

test.serial("a JSON answer comes back with its status, headers and whole body", async (t) => {
  upstream.script.next({ chunks: ["hello ", "world"], headers: { "x-extra": "1" } });
  const res = await post(false);
  t.is(res.status, 200);
  t.is(res.headers["x-extra"], "1");
  t.regex(String(res.headers["content-type"]), /application\/json/);
  const body = JSON.parse(await readUpstreamBody(res.body, MAX)) as {
    choices: { message: { content: string } }[];
  };
  t.is(body.choices[0]?.message.content, "hello world");
});

test.serial("a streamed answer is read chunk by chunk to its end", async (t) => {
  upstream.script.next({ chunkCount: 30, paceMs: 1 });
  const res = await post(true);
  let text = "";
  for await (const chunk of res.body) text += String(chunk);
  t.is(text.split("data: ").length - 1, 30 + 3, "role chunk, 30 pieces, usage chunk, [DONE]");
  t.true(text.trimEnd().endsWith("data: [DONE]"));
});

test.serial("a large body keeps its bytes through back pressure", async (t) => {
  const big = Buffer.alloc(8 * 1024 * 1024, "abcdefgh");
  const { url, s } = await server((res) => res.end(big));
  t.teardown(() => s.close());
  const res = await post(false, undefined, url);
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) {
    chunks.push(chunk as Buffer);
    // A slow reader: the stream's buffer fills and the connection is paused meanwhile.
    if (chunks.length % 8 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  t.true(Buffer.concat(chunks).equals(big));
});

test.serial("the caller's signal aborts a request still waiting for its headers", async (t) => {
  upstream.script.next({ delayMs: 2_000 });
  const before = upstream.abortedRequests();
  const controller = new AbortController();
  const pending = post(false, controller.signal);
  setTimeout(() => controller.abort(new Error("client went away")), 50);
  const err = await t.throwsAsync(pending);
  t.is(err?.message, "client went away");
  await upstream.whenAborted(before + 1);
  t.is(getEventListeners(controller.signal, "abort").length, 0, "no listener left behind");
});

test.serial("the caller's signal aborts a stream in flight, and the backend sees it", async (t) => {
  upstream.script.next({ chunkCount: 200, paceMs: 10 });
  const before = upstream.abortedRequests();
  const controller = new AbortController();
  const res = await post(true, controller.signal);
  const reading = (async () => {
    for await (const chunk of res.body) {
      t.truthy(chunk);
      controller.abort(new Error("client went away"));
    }
  })();
  const err = await t.throwsAsync(reading);
  t.is(err?.message, "client went away");
  await upstream.whenAborted(before + 1);
  t.is(getEventListeners(controller.signal, "abort").length, 0);
});

test.serial("destroying the body before its end closes the backend's request", async (t) => {
  upstream.script.next({ chunkCount: 200, paceMs: 10 });
  const before = upstream.abortedRequests();
  const res = await post(true);
  await once(res.body, "data");
  res.body.destroy();
  await upstream.whenAborted(before + 1);
  t.pass();
});

test.serial("one signal over requests in parallel aborts all of them", async (t) => {
  const before = upstream.abortedRequests();
  upstream.script.next({ chunkCount: 200, paceMs: 10 }).next({ chunkCount: 200, paceMs: 10 });
  const controller = new AbortController();
  const [a, b] = await Promise.all([post(true, controller.signal), post(true, controller.signal)]);
  await Promise.all([once(a.body, "data"), once(b.body, "data")]);
  const ended = Promise.allSettled([readUpstreamBody(a.body, MAX), readUpstreamBody(b.body, MAX)]);
  controller.abort(new Error("stop"));
  const results = await ended;
  t.deepEqual(
    results.map((r) => r.status),
    ["rejected", "rejected"],
  );
  await upstream.whenAborted(before + 2);
  t.is(getEventListeners(controller.signal, "abort").length, 0);
});

test.serial(
  "a finished request leaves no listener on a signal it shares with the next",
  async (t) => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      const res = await post(false, controller.signal);
      await readUpstreamBody(res.body, MAX);
    }
    t.is(getEventListeners(controller.signal, "abort").length, 0);
  },
);

test.serial("a backend that hangs up mid-body fails the body, not the process", async (t) => {
  upstream.script.next({ chunkCount: 20, hangUp: "mid-stream" });
  const res = await post(true);
  await t.throwsAsync(readUpstreamBody(res.body, MAX));
});

test.serial("a malformed body fails the body, not the process", async (t) => {
  const { url, s } = await server((res) => {
    res.socket?.end(
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n" +
        "zz\r\nnot a chunk\r\n",
    );
  });
  t.teardown(() => s.close());
  const res = await post(false, undefined, url);
  await t.throwsAsync(readUpstreamBody(res.body, MAX));
});

test.serial(
  "a body failed before anyone reads it hands its error to the first reader",
  async (t) => {
    let aborted: Error | undefined;
    const controller = {
      aborted: false,
      paused: false,
      reason: null,
      abort: (reason: Error) => (aborted = reason),
      pause: () => undefined,
      resume: () => undefined,
    };
    const body = new UpstreamBody(controller);
    // As when the connection breaks in the same turn as the headers: the reader attaches later.
    body.destroy(new Error("connection reset"));
    await Promise.resolve();
    await new Promise((r) => process.nextTick(r));
    const err = await t.throwsAsync(readUpstreamBody(body, MAX));
    t.is((err?.cause as Error | undefined)?.message, "connection reset");
    t.is(aborted?.message, "connection reset", "the request was aborted too");
  },
);

test.serial("a refused connection rejects, with no response", async (t) => {
  const { url, s } = await server(() => undefined);
  await new Promise((r) => s.close(r));
  await t.throwsAsync(post(false, undefined, url));
});

test.serial("dump reads a small body away and cuts off a large one", async (t) => {
  upstream.script.next({ status: 500 });
  const small = await post(false);
  t.is(small.status, 500);
  await small.body.dump();
  t.true(small.body.closed);
  const big = Buffer.alloc(4 * 1024 * 1024, "x");
  const { url, s } = await server((res) => res.end(big));
  t.teardown(() => s.close());
  const large = await post(false, undefined, url);
  await large.body.dump();
  t.true(large.body.closed);
  t.true(large.body.readableLength < big.length);
});
