import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { ExtProcSession, headerValue } from "./fakes/envoy-client.js";
import { connectEnvoy, throughEnvoy, type EnvoyClients } from "./fakes/envoy-round-trip.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let key: string;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "proc-model" }, upstream.url);
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "proc-premium", required_tier: "enterprise" },
    upstream.url,
  );
  key = await customerKey(gateway.url, gateway.adminKey, "pro");
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
  await upstream?.close();
});

interface AuditRow {
  outcome: string;
  status: number;
  error_code: string | null;
  model: string | null;
  usage: { total_tokens: number } | null;
}

async function auditOf(requestId: string): Promise<AuditRow[]> {
  const res = await call(gateway.url, "GET", `/api/v1/audit/records?request_id=${requestId}`, key);
  return res.json.data as AuditRow[];
}

function chat(
  requestId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

const messages = [{ role: "user", content: "hello there" }];

test.serial(
  "ext_proc (Envoy test double): a JSON completion is routed, rewritten, metered and audited",
  async (t) => {
    upstream.script.next({ chunks: ["Hi ", "there"] });
    const exchange = await throughEnvoy(
      envoy,
      chat(
        "proc-json-1",
        {
          model: "proc-model",
          messages,
          evident: { classification: "internal" },
          // A caller cannot steer routing.
        },
        { "x-evident-upstream": "http://evil.example/v1" },
      ),
    );
    t.is(exchange.answeredBy, "upstream");
    t.is(exchange.status, 200);
    const forwarded = exchange.forwarded!;
    t.true(forwarded.url.startsWith(upstream.url.replace(/\/v1$/, "")));
    t.is(new URL(forwarded.url).pathname, "/v1/chat/completions");
    // The caller's key never reaches the backend; our extension is removed from the body.
    t.is(headerValue(forwarded.headers, "authorization"), undefined);
    const sent = JSON.parse(forwarded.body) as Record<string, unknown>;
    t.is(sent.evident, undefined);
    t.is(sent.model, "proc-model");
    t.is(headerValue(forwarded.headers, "x-evident-classification"), "internal");
    t.true(exchange.session!.routeCacheCleared);
    const answer = JSON.parse(exchange.body) as { choices: { message: { content: string } }[] };
    t.is(answer.choices[0]?.message.content, "Hi there");
    t.is(headerValue(exchange.headers, "x-request-id"), "proc-json-1");
    const records = await auditOf("proc-json-1");
    t.is(records.length, 1);
    t.is(records[0]?.outcome, "completed");
    t.is(records[0]?.status, 200);
    t.true((records[0]?.usage?.total_tokens ?? 0) > 0);
    t.is((await exchange.session!.ended).endedBy, "processor");
  },
);

test.serial(
  "ext_proc (Envoy test double): refusals are immediate responses with our envelope",
  async (t) => {
    const cases = [
      {
        id: "proc-deny-tier",
        body: { model: "proc-premium", messages },
        status: 403,
        code: "tier_restricted",
        audited: true,
      },
      {
        id: "proc-deny-model",
        body: { model: "nope", messages },
        status: 404,
        code: "model_not_found",
        audited: true,
      },
      {
        id: "proc-deny-422",
        body: { model: "proc-model", messages: [] },
        status: 422,
        code: "validation_failed",
        // Refused for malformed input, and still recorded (docs/api.md).
        audited: true,
      },
    ];
    for (const c of cases) {
      const exchange = await throughEnvoy(envoy, chat(c.id, c.body));
      t.is(exchange.answeredBy, "ext_proc", c.id);
      t.is(exchange.status, c.status, c.id);
      t.is((JSON.parse(exchange.body) as { error: { code: string } }).error.code, c.code, c.id);
      t.is(headerValue(exchange.headers, "x-request-id"), c.id);
      t.is(exchange.forwarded, undefined);
      const records = await auditOf(c.id);
      t.is(records.length, c.audited ? 1 : 0, c.id);
      if (c.audited) t.is(records[0]?.error_code, c.code, c.id);
    }
    const bad = await throughEnvoy(envoy, { ...chat("proc-bad-json", {}), body: "{not json" });
    t.is(bad.status, 400);
    t.is((JSON.parse(bad.body) as { error: { code: string } }).error.code, "invalid_json");
  },
);

test.serial(
  "ext_proc (Envoy test double): a streamed SSE answer is relayed chunk by chunk and audited once",
  async (t) => {
    upstream.script.next({ chunks: ["one ", "two ", "three"], paceMs: 5 });
    const exchange = await throughEnvoy(
      envoy,
      chat("proc-sse-1", { model: "proc-model", messages, stream: true }),
    );
    t.is(exchange.status, 200);
    t.regex(headerValue(exchange.headers, "content-type") ?? "", /text\/event-stream/);
    const sent = JSON.parse(exchange.forwarded!.body) as {
      stream_options: { include_usage: boolean };
    };
    t.true(sent.stream_options.include_usage);
    const events = exchange.body.split("\n\n").filter((e) => e.startsWith("data: "));
    t.is(events.at(-1), "data: [DONE]");
    const text = events
      .slice(0, -1)
      .map(
        (e) =>
          JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[]; usage?: unknown },
      )
      .map((chunk) => {
        t.is(chunk.usage, undefined, "usage hidden: the caller did not ask for it");
        return chunk.choices[0]?.delta.content ?? "";
      })
      .join("");
    t.is(text, "one two three");
    const records = await auditOf("proc-sse-1");
    t.is(records.length, 1);
    t.is(records[0]?.outcome, "completed");
    t.true((records[0]?.usage?.total_tokens ?? 0) > 0);
  },
);

test.serial(
  "ext_proc (Envoy test double): a client reset mid-stream is audited as client_aborted",
  async (t) => {
    upstream.script.next({ chunkCount: 50, paceMs: 20 });
    const exchange = await throughEnvoy(
      envoy,
      chat("proc-reset-1", { model: "proc-model", messages, stream: true }),
      { resetAfterChunks: 2 },
    );
    t.is((await exchange.session!.ended).endedBy, "envoy");
    const records = await waitForRecords("proc-reset-1");
    t.is(records.length, 1);
    t.is(records[0]?.outcome, "client_aborted");
  },
);

test.serial(
  "ext_proc (Envoy test double): a slow backend is waited for, whatever the message timeout",
  async (t) => {
    upstream.script.next({ delayMs: 400, chunks: ["late"] });
    const exchange = await throughEnvoy(
      envoy,
      chat("proc-slow-1", { model: "proc-model", messages }),
      { session: { messageTimeoutMs: 200 } },
    );
    t.is(exchange.status, 200);
    t.is(exchange.session!.failure, undefined);
    t.is((await auditOf("proc-slow-1"))[0]?.outcome, "completed");
  },
);

test.serial(
  "ext_proc (Envoy test double): a backend 5xx and 4xx are relayed with their status and message",
  async (t) => {
    upstream.script.next({ status: 500 });
    const failed = await throughEnvoy(envoy, chat("proc-5xx", { model: "proc-model", messages }));
    t.is(failed.status, 500);
    t.is(
      (JSON.parse(failed.body) as { error: { message: string } }).error.message,
      "fake upstream scripted status 500",
    );
    t.is((await auditOf("proc-5xx"))[0]?.outcome, "upstream_error");
    upstream.script.next({ status: 400 });
    const rejected = await throughEnvoy(envoy, chat("proc-4xx", { model: "proc-model", messages }));
    t.is(rejected.status, 400);
    t.truthy((JSON.parse(rejected.body) as { error: { message: string } }).error.message);
    t.is((await auditOf("proc-4xx"))[0]?.outcome, "upstream_error");
  },
);

test.serial(
  "ext_proc (Envoy test double): skipped phases and end_of_stream still finish the call once",
  async (t) => {
    // Response body mode NONE: Envoy sends the response headers only, then ends the stream.
    upstream.script.next({ chunks: ["x"] });
    const noBody = await throughEnvoy(
      envoy,
      chat("proc-nobody", { model: "proc-model", messages }),
      { session: { responseBodyMode: "NONE" } },
    );
    t.is(noBody.status, 200);
    const a = await waitForRecords("proc-nobody");
    t.is(a.length, 1);
    t.is(a[0]?.outcome, "completed");
    // Headers with end_of_stream on an inference path: no body to check.
    const empty = await throughEnvoy(envoy, { ...chat("proc-empty", {}), body: undefined });
    t.is(empty.status, 400);
    t.is((JSON.parse(empty.body) as { error: { code: string } }).error.code, "invalid_json");
  },
);

/** The stream's end is handled after the test double returns: poll briefly for the record. */
async function waitForRecords(requestId: string): Promise<AuditRow[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const rows = await auditOf(requestId);
    if (rows.length > 0) return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
  return [];
}

test.serial(
  "ext_proc (Envoy test double): response trailers after the body are answered; before its end they fail the call",
  async (t) => {
    const body = JSON.stringify({ model: "proc-model", messages });
    const answer = JSON.stringify({
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "proc-model",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    });
    const request = chat("proc-trailers-ok", JSON.parse(body) as Record<string, unknown>);
    const ok = new ExtProcSession(envoy.externalProcessor, request);
    await ok.requestHeaders();
    await ok.requestBody(request.body, { endOfStream: true });
    await ok.responseHeaders(200, { "content-type": "application/json" });
    await ok.responseBody(answer, { endOfStream: true });
    t.is((await ok.responseTrailers({ "x-backend-trailer": "1" })).kind, "continued");
    await ok.end();
    t.is(JSON.parse(ok.downstream.body.toString("utf8")).choices[0].message.content, "ok");
    t.is((await waitForRecords("proc-trailers-ok"))[0]?.outcome, "completed");

    const cut = chat("proc-trailers-cut", JSON.parse(body) as Record<string, unknown>);
    const early = new ExtProcSession(envoy.externalProcessor, cut);
    await early.requestHeaders();
    await early.requestBody(cut.body, { endOfStream: true });
    await early.responseHeaders(200, { "content-type": "application/json" });
    await early.responseBody(answer.slice(0, 10));
    t.is((await early.responseTrailers({ "x-backend-trailer": "1" })).kind, "immediate");
    t.is((await waitForRecords("proc-trailers-cut"))[0]?.outcome, "upstream_error");
  },
);

test.serial(
  "ext_proc (Envoy test double): a backend body cut mid-way (the exchange ends before end_of_stream) is audited as upstream_unavailable, JSON and SSE",
  async (t) => {
    const answer = JSON.stringify({
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "proc-model",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    });
    const json = chat("proc-cut-json", { model: "proc-model", messages });
    const cutJson = new ExtProcSession(envoy.externalProcessor, json);
    await cutJson.requestHeaders();
    await cutJson.requestBody(json.body, { endOfStream: true });
    await cutJson.responseHeaders(200, { "content-type": "application/json" });
    await cutJson.responseBody(answer.slice(0, 25));
    await cutJson.end();
    const jsonRecord = (await waitForRecords("proc-cut-json"))[0];
    t.is(jsonRecord?.outcome, "upstream_error");
    t.is(jsonRecord?.error_code, "upstream_unavailable");
    t.is(jsonRecord?.status, 502);

    const sse = chat("proc-cut-sse", { model: "proc-model", messages, stream: true });
    const cutSse = new ExtProcSession(envoy.externalProcessor, sse);
    await cutSse.requestHeaders();
    await cutSse.requestBody(sse.body, { endOfStream: true });
    await cutSse.responseHeaders(200, { "content-type": "text/event-stream" });
    const chunk = {
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: "proc-model",
      choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }],
    };
    await cutSse.responseBody(`data: ${JSON.stringify(chunk)}\n\n`);
    await cutSse.end();
    const sseRecord = (await waitForRecords("proc-cut-sse"))[0];
    t.is(sseRecord?.outcome, "stream_failed");
    t.is(sseRecord?.error_code, "upstream_unavailable");
  },
);
