import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { connectEnvoy, throughEnvoy, type EnvoyClients } from "./fakes/envoy-round-trip.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

/** Guardrails through Envoy (the "Envoy plays" test double) compared with the REST façade. */
let gateway: RunningApp;
let upstream: FakeUpstream;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let key: string;

const EMAIL = "jane.doe@example.com";

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp({ env: { UPSTREAM_RETRIES: "0" } });
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "guarded" }, upstream.url);
  const customer = await call(gateway.url, "POST", "/api/v1/customers", gateway.adminKey, {
    name: "guarded-co",
    tier: "pro",
  });
  const customerId = customer.json.id as string;
  key = (
    await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
      customer_id: customerId,
      name: "k",
    })
  ).json.key as string;
  const rule = await call(
    gateway.url,
    "POST",
    `/api/v1/guardrails/rules?customer_id=${customerId}`,
    gateway.adminKey,
    {
      name: "no zanzibar in answers",
      kind: "keyword",
      keywords: ["zanzibar"],
      action: "block",
      applies_to: "output",
    },
  );
  if (rule.status !== 201) throw new Error(`rule: ${JSON.stringify(rule.json)}`);
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
  await upstream?.close();
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

async function viaRest(requestId: string, body: Record<string, unknown>) {
  const r = request(requestId, body);
  const res = await fetch(`${gateway.url}${r.path}`, {
    method: "POST",
    headers: r.headers,
    body: r.body,
  });
  return { status: res.status, body: await res.text() };
}

/** The caller-visible text of an SSE stream, and the error event's code if there was one. */
function streamed(body: string): { text: string; error: string | undefined } {
  let text = "";
  let error: string | undefined;
  for (const event of body.split("\n\n")) {
    if (!event.startsWith("data: {")) continue;
    const json = JSON.parse(event.slice(6)) as {
      choices?: { delta?: { content?: string } }[];
      error?: { code: string };
    };
    if (json.error) error = json.error.code;
    text += json.choices?.[0]?.delta?.content ?? "";
  }
  return { text, error };
}

async function outcomeOf(requestId: string): Promise<string | undefined> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const res = await call(
      gateway.url,
      "GET",
      `/api/v1/audit/records?request_id=${requestId}`,
      key,
    );
    const rows = res.json.data as { outcome: string }[];
    if (rows.length > 0) return rows[0]?.outcome;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}

test.serial(
  "redaction is a body mutation: the backend gets the same redacted body as via REST (Envoy test double)",
  async (t) => {
    const body = {
      model: "guarded",
      messages: [{ role: "user", content: `Please email ${EMAIL} about the invoice` }],
    };
    await viaRest("guard-redact-rest", body);
    const restSent = upstream.requests.at(-1)?.body as Record<string, unknown>;
    const exchange = await throughEnvoy(envoy, request("guard-redact-envoy", body));
    t.is(exchange.status, 200);
    t.is(exchange.session?.failure, undefined, "content-length matched the mutated body");
    const envoySent = JSON.parse(exchange.forwarded!.body) as Record<string, unknown>;
    t.false(exchange.forwarded!.body.includes(EMAIL));
    t.deepEqual(envoySent, restSent);
  },
);

test.serial(
  "a PII value split across SSE chunks is caught in the stream, as via REST (Envoy test double)",
  async (t) => {
    const chunks = ["Write to jane.", "doe@exam", "ple.com today"];
    const body = { model: "guarded", messages: [{ role: "user", content: "who?" }], stream: true };
    upstream.script.next({ chunks });
    const rest = await viaRest("guard-split-rest", body);
    upstream.script.next({ chunks });
    const exchange = await throughEnvoy(envoy, request("guard-split-envoy", body));
    const viaEnvoy = streamed(exchange.body);
    t.false(viaEnvoy.text.includes(EMAIL));
    t.deepEqual(viaEnvoy, streamed(rest.body));
    t.is(await outcomeOf("guard-split-envoy"), await outcomeOf("guard-split-rest"));
  },
);

test.serial(
  "a guardrail block mid-stream ends the stream with an error event, as via REST (Envoy test double)",
  async (t) => {
    const chunks = ["All ", "fine ", "until ", "zanzibar ", "appears ", "and more"];
    const body = { model: "guarded", messages: [{ role: "user", content: "story" }], stream: true };
    upstream.script.next({ chunks, paceMs: 5 });
    const rest = await viaRest("guard-block-rest", body);
    upstream.script.next({ chunks, paceMs: 5 });
    const exchange = await throughEnvoy(envoy, request("guard-block-envoy", body));
    const viaEnvoy = streamed(exchange.body);
    t.is(viaEnvoy.error, "custom_rule_block");
    t.false(viaEnvoy.text.toLowerCase().includes("zanzibar"));
    t.false(exchange.body.includes("[DONE]"));
    t.deepEqual(viaEnvoy, streamed(rest.body));
    t.is(await outcomeOf("guard-block-envoy"), "blocked");
    t.is(await outcomeOf("guard-block-rest"), "blocked");
  },
);
