import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startOtlpReceiver, type ReceivedSpan } from "./support/otlp-receiver.js";
import { call, startTestApp } from "./support/test-app.js";
import { within } from "./support/within.js";

const CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

let upstream: FakeUpstream;
test.before(async () => {
  upstream = await startFakeUpstream();
});
test.after.always(async () => {
  await upstream?.close();
});

test.serial(
  "every call is exported over OTLP with GenAI attributes, stage spans and the trace continued to the backend (fake upstream, in-process OTLP receiver)",
  async (t) => {
    const receiver = await startOtlpReceiver();
    const gateway = await startTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    try {
      await deployModel(gateway.url, gateway.adminKey, { name: "traced" }, upstream.url);
      const key = await customerKey(gateway.url, gateway.adminKey, "pro");
      const res = await call(
        gateway.url,
        "POST",
        "/v1/chat/completions",
        key,
        { model: "traced", messages: [{ role: "user", content: "hello there" }] },
        { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, "x-request-id": "traced-call-1" },
      );
      t.is(res.status, 200);
      const find = (name: string, kind = 1) =>
        receiver.spans.find((s) => s.name === name && s.kind === kind);
      const arrived = await within(
        20_000,
        async () =>
          find("chat traced", 2)?.attributes["evident.request_id"] === "traced-call-1" &&
          find("evident.audit") !== undefined,
      );
      t.true(arrived, `spans: ${receiver.spans.map((s) => s.name).join(", ")}`);
      const root = find("chat traced", 2) as ReceivedSpan;
      t.is(root.traceId, CLIENT_TRACE, "the caller's trace is continued");
      t.is(root.parentSpanId, CLIENT_SPAN);
      t.is(root.kind, 2, "server span");
      t.like(root.attributes, {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "traced",
        "http.response.status_code": 200,
        "evident.outcome": "completed",
      });
      t.is(typeof root.attributes["gen_ai.response.model"], "string");
      t.true((root.attributes["gen_ai.usage.input_tokens"] as number) > 0);
      t.true((root.attributes["gen_ai.usage.output_tokens"] as number) > 0);
      t.deepEqual(root.attributes["gen_ai.response.finish_reasons"], ["stop"]);
      t.is(root.resource["service.name"], "evident-dataplane");
      for (const name of [
        "evident.limits",
        "evident.guardrails.request",
        "evident.routing",
        "evident.guardrails.response",
        "evident.limits.after_call",
        "evident.meter.after_call",
        "evident.audit",
      ]) {
        const span = find(name);
        t.truthy(span, name);
        t.is(span?.traceId, CLIENT_TRACE, name);
        t.is(span?.parentSpanId, root.spanId, name);
      }
      const client = receiver.spans.find((s) => s.kind === 3 && s.traceId === CLIENT_TRACE);
      t.truthy(client, "an upstream client span");
      t.is(client?.parentSpanId, root.spanId);
      t.like(client?.attributes, { "gen_ai.system": "openai", "http.response.status_code": 200 });
      const sent = upstream.requests.find((r) => r.headers["x-request-id"] === "traced-call-1");
      t.is(
        sent?.headers.traceparent,
        `00-${CLIENT_TRACE}-${client?.spanId}-01`,
        "the backend gets the upstream span as its parent",
      );
      t.false(JSON.stringify(receiver.spans).includes("hello there"), "no prompt text in spans");
    } finally {
      await gateway.close();
      await receiver.close();
    }
  },
);

test.serial(
  "without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported and no traceparent is sent (fake upstream)",
  async (t) => {
    const receiver = await startOtlpReceiver();
    const gateway = await startTestApp();
    try {
      await deployModel(gateway.url, gateway.adminKey, { name: "untraced" }, upstream.url);
      const key = await customerKey(gateway.url, gateway.adminKey, "pro");
      const res = await call(
        gateway.url,
        "POST",
        "/v1/chat/completions",
        key,
        { model: "untraced", messages: [{ role: "user", content: "hi" }] },
        { "x-request-id": "untraced-call-1" },
      );
      t.is(res.status, 200);
      const sent = upstream.requests.find((r) => r.headers["x-request-id"] === "untraced-call-1");
      t.is(sent?.headers.traceparent, undefined);
    } finally {
      // Closing flushes any span processor; had one existed, its spans would have arrived now.
      await gateway.close();
      t.is(receiver.requests(), 0);
      await receiver.close();
    }
  },
);
