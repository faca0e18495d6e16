import test from "ava";
import { ExtProcSession } from "./fakes/envoy-client.js";
import { throughEnvoy } from "./fakes/envoy-round-trip.js";
import { messages, useExtProcRig } from "./support/ext-proc-rig.js";

const rig = useExtProcRig(test);
const { chat, auditOf, waitForRecords } = rig;

test.serial(
  "ext_proc (Envoy test double): a backend 5xx and 4xx are relayed with their status and message",
  async (t) => {
    rig.upstream.script.next({ status: 500 });
    const failed = await throughEnvoy(
      rig.envoy,
      chat("proc-5xx", { model: "proc-model", messages }),
    );
    t.is(failed.status, 500);
    t.is(
      (JSON.parse(failed.body) as { error: { message: string } }).error.message,
      "fake upstream scripted status 500",
    );
    t.is((await auditOf("proc-5xx"))[0]?.outcome, "upstream_error");
    rig.upstream.script.next({ status: 400 });
    const rejected = await throughEnvoy(
      rig.envoy,
      chat("proc-4xx", { model: "proc-model", messages }),
    );
    t.is(rejected.status, 400);
    t.truthy((JSON.parse(rejected.body) as { error: { message: string } }).error.message);
    t.is((await auditOf("proc-4xx"))[0]?.outcome, "upstream_error");
  },
);

test.serial(
  "ext_proc (Envoy test double): skipped phases and end_of_stream still finish the call once",
  async (t) => {
    // Response body mode NONE: Envoy sends the response headers only, then ends the stream.
    rig.upstream.script.next({ chunks: ["x"] });
    const noBody = await throughEnvoy(
      rig.envoy,
      chat("proc-nobody", { model: "proc-model", messages }),
      { session: { responseBodyMode: "NONE" } },
    );
    t.is(noBody.status, 200);
    const a = await waitForRecords("proc-nobody");
    t.is(a.length, 1);
    t.is(a[0]?.outcome, "completed");
    // Headers with end_of_stream on an inference path: no body to check.
    const empty = await throughEnvoy(rig.envoy, { ...chat("proc-empty", {}), body: undefined });
    t.is(empty.status, 400);
    t.is((JSON.parse(empty.body) as { error: { code: string } }).error.code, "invalid_json");
  },
);

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
    const ok = new ExtProcSession(rig.envoy.externalProcessor, request);
    await ok.requestHeaders();
    await ok.requestBody(request.body, { endOfStream: true });
    await ok.responseHeaders(200, { "content-type": "application/json" });
    await ok.responseBody(answer, { endOfStream: true });
    t.is((await ok.responseTrailers({ "x-backend-trailer": "1" })).kind, "continued");
    await ok.end();
    t.is(JSON.parse(ok.downstream.body.toString("utf8")).choices[0].message.content, "ok");
    t.is((await waitForRecords("proc-trailers-ok"))[0]?.outcome, "completed");

    const cut = chat("proc-trailers-cut", JSON.parse(body) as Record<string, unknown>);
    const early = new ExtProcSession(rig.envoy.externalProcessor, cut);
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
    const cutJson = new ExtProcSession(rig.envoy.externalProcessor, json);
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
    const cutSse = new ExtProcSession(rig.envoy.externalProcessor, sse);
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
