import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import {
  connectEnvoy,
  ExtProcSession,
  headerValue,
  type EnvoyClients,
} from "./fakes/envoy-client.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

/** ext_proc message orders and modes other than the sample's defaults (Envoy test double). */
let gateway: RunningApp;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let key: string;

test.before(async () => {
  gateway = await startTestApp();
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  // No backend is called: the test double plays the backend's answers itself.
  await deployModel(gateway.url, gateway.adminKey, { name: "modes" }, "http://127.0.0.1:9/v1");
  key = await customerKey(gateway.url, gateway.adminKey, "pro");
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
});

function request(requestId: string, body: Record<string, unknown>) {
  return {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
    body: JSON.stringify(body),
  };
}

const sse = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "modes", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

test("streamed chunks sent before the previous answer (pipelined) are answered in order", async (t) => {
  const r = request("modes-pipelined", {
    model: "modes",
    messages: [{ role: "user", content: "count" }],
    stream: true,
  });
  const session = new ExtProcSession(envoy.externalProcessor, r);
  await session.requestHeaders();
  await session.requestBody(r.body, { endOfStream: true });
  await session.responseHeaders(200, { "content-type": "text/event-stream" });
  const words = Array.from({ length: 20 }, (_, i) => `w${i} `);
  // Each event split in two chunks, all in flight at once.
  const pieces = words.flatMap((w) => {
    const event = sse(w);
    return [event.slice(0, 17), event.slice(17)];
  });
  const results = await Promise.all(pieces.map((p) => session.responseBody(p)));
  t.true(results.every((x) => x.kind === "continued"));
  await session.responseBody("data: [DONE]\n\n", { endOfStream: true });
  await session.end();
  t.is(session.failure, undefined);
  const text = session.downstream.body
    .toString("utf8")
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map(
      (e) =>
        (JSON.parse(e.slice(6)) as { choices: { delta: { content: string } }[] }).choices[0]?.delta
          .content,
    )
    .join("");
  t.is(text, words.join(""));
  t.true(session.downstream.body.toString("utf8").endsWith("data: [DONE]\n\n"));
});

test("a request body in STREAMED mode is held and released whole, rewritten, at its end", async (t) => {
  const r = request("modes-streamed-request", {
    model: "modes",
    messages: [{ role: "user", content: "a long prompt in pieces" }],
    evident: { classification: "internal" },
  });
  const session = new ExtProcSession(envoy.externalProcessor, r, { requestBodyMode: "STREAMED" });
  await session.requestHeaders();
  const thirds = [r.body.slice(0, 10), r.body.slice(10, 30), r.body.slice(30)];
  await session.requestBody(thirds[0] ?? "");
  await session.requestBody(thirds[1] ?? "");
  const last = await session.requestBody(thirds[2] ?? "", { endOfStream: true });
  t.is(last.kind, "continued");
  const forwarded = JSON.parse(session.upstream.body.toString("utf8")) as Record<string, unknown>;
  t.is(forwarded.evident, undefined);
  t.is(forwarded.model, "modes");
  // Routing needs BUFFERED: in STREAMED mode Envoy ignores header mutations in body answers (the
  // request was routed on its headers already), so the sample's catch-all route answers 503.
  t.is(headerValue(session.upstream.headers, "x-evident-upstream"), undefined);
  await session.reset();
  // The reset is handled after the test double sees the stream end: poll briefly.
  let count = 0;
  for (const deadline = Date.now() + 30_000; count === 0 && Date.now() < deadline;) {
    const res = await call(
      gateway.url,
      "GET",
      "/api/v1/audit/records?request_id=modes-streamed-request",
      key,
    );
    count = (res.json.data as unknown[]).length;
    if (count === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.is(count, 1, "the abandoned call is still recorded once");
});

test("a processor answer never leaves Envoy waiting: a GET on an inference path is refused at once", async (t) => {
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "GET",
    path: "/v1/chat/completions",
    headers: { authorization: `Bearer ${key}` },
  });
  const result = await session.requestHeaders({ endOfStream: true });
  t.is(result.kind, "immediate");
  t.is(session.localReply?.status, 405);
  t.is((await session.ended).endedBy, "processor");
});
