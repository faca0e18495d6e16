import test from "ava";
import { headerValue } from "./fakes/envoy-client.js";
import { throughEnvoy } from "./fakes/envoy-round-trip.js";
import { messages, useExtProcRig } from "./support/ext-proc-rig.js";

const rig = useExtProcRig(test);
const { chat, auditOf, waitForRecords } = rig;

test.serial(
  "ext_proc (Envoy test double): a JSON completion is routed, rewritten, metered and audited",
  async (t) => {
    rig.upstream.script.next({ chunks: ["Hi ", "there"] });
    const exchange = await throughEnvoy(
      rig.envoy,
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
    t.true(forwarded.url.startsWith(rig.upstream.url.replace(/\/v1$/, "")));
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
      const exchange = await throughEnvoy(rig.envoy, chat(c.id, c.body));
      t.is(exchange.answeredBy, "ext_proc", c.id);
      t.is(exchange.status, c.status, c.id);
      t.is((JSON.parse(exchange.body) as { error: { code: string } }).error.code, c.code, c.id);
      t.is(headerValue(exchange.headers, "x-request-id"), c.id);
      t.is(exchange.forwarded, undefined);
      const records = await auditOf(c.id);
      t.is(records.length, c.audited ? 1 : 0, c.id);
      if (c.audited) t.is(records[0]?.error_code, c.code, c.id);
    }
    const bad = await throughEnvoy(rig.envoy, { ...chat("proc-bad-json", {}), body: "{not json" });
    t.is(bad.status, 400);
    t.is((JSON.parse(bad.body) as { error: { code: string } }).error.code, "invalid_json");
  },
);

test.serial(
  "ext_proc (Envoy test double): a streamed SSE answer is relayed chunk by chunk and audited once",
  async (t) => {
    rig.upstream.script.next({ chunks: ["one ", "two ", "three"], paceMs: 5 });
    const exchange = await throughEnvoy(
      rig.envoy,
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
    rig.upstream.script.next({ chunkCount: 50, paceMs: 20 });
    const exchange = await throughEnvoy(
      rig.envoy,
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
    rig.upstream.script.next({ delayMs: 400, chunks: ["late"] });
    const exchange = await throughEnvoy(
      rig.envoy,
      chat("proc-slow-1", { model: "proc-model", messages }),
      { session: { messageTimeoutMs: 200 } },
    );
    t.is(exchange.status, 200);
    t.is(exchange.session!.failure, undefined);
    t.is((await auditOf("proc-slow-1"))[0]?.outcome, "completed");
  },
);
