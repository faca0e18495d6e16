import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { headerValue } from "./fakes/envoy-client.js";
import { connectEnvoy, throughEnvoy, type EnvoyClients } from "./fakes/envoy-round-trip.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

/**
 * Parity for the response cache and prompt templates: the same calls through the REST façade and
 * through Envoy (the "Envoy plays" test double driving the ext_proc adapter with real protos) use
 * the same cache entries and render the same prompt references.
 */
let gateway: RunningApp;
let upstream: FakeUpstream;
let grpc: GrpcServer;
let envoy: EnvoyClients;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp({ env: { UPSTREAM_RETRIES: "0" } });
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "ep-model" }, upstream.url);
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
  await upstream?.close();
});

interface Answer {
  status: number;
  body: string;
  header: (name: string) => string | undefined;
}

async function viaRest(key: string, body: unknown, requestId: string): Promise<Answer> {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: await res.text(),
    header: (name) => res.headers.get(name) ?? undefined,
  };
}

async function viaEnvoy(key: string, body: unknown, requestId: string) {
  const exchange = await throughEnvoy(envoy, {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
    },
    body: JSON.stringify(body),
  });
  return {
    status: exchange.status,
    body: exchange.body,
    header: (name: string) => headerValue(exchange.headers, name),
    answeredBy: exchange.answeredBy,
    forwarded: exchange.forwarded,
  };
}

const contentOf = (body: string) =>
  (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]?.message.content;

const sseText = (raw: string) =>
  raw
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] })
    .map((e) => e.choices[0]?.delta?.content ?? "")
    .join("");

async function auditOf(key: string, requestId: string) {
  const rows: Record<string, unknown>[] = [];
  await within(30_000, async () => {
    const res = await call(
      gateway.url,
      "GET",
      `/api/v1/audit/records?request_id=${requestId}`,
      key,
    );
    rows.splice(0, rows.length, ...((res.json.data as Record<string, unknown>[]) ?? []));
    return rows.length > 0;
  });
  return rows[0] as {
    outcome: string;
    details: Record<string, Record<string, unknown>> | null;
  };
}

test.serial(
  "parity REST vs Envoy (Envoy test double): the response cache serves both, a hit through Envoy is an ImmediateResponse",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const other = await customerKey(gateway.url, gateway.adminKey, "pro");
    for (const k of [key, other]) {
      const on = await call(gateway.url, "PATCH", "/api/v1/cache/config", k, { enabled: true });
      t.is(on.status, 200);
    }
    const ask = (content: string, extra: Record<string, unknown> = {}) => ({
      model: "ep-model",
      messages: [{ role: "user", content }],
      ...extra,
    });

    // Stored by a REST miss, served through Envoy without reaching the backend.
    upstream.script.next({ chunks: ["cached ", "answer"] });
    const restMiss = await viaRest(key, ask("envoy cache one"), "ec-rest-miss");
    t.is(restMiss.header("x-evident-cache"), "miss");
    const stored = async () =>
      ((await call(gateway.url, "GET", "/api/v1/cache/entries", key)).json.data as unknown[])
        .length;
    t.true(await within(20_000, async () => (await stored()) === 1));
    const before = upstream.requests.length;
    const hit = await viaEnvoy(key, ask("envoy cache one"), "ec-envoy-hit");
    t.is(hit.answeredBy, "ext_proc");
    t.is(hit.forwarded, undefined, "nothing was forwarded");
    t.is(hit.status, 200);
    t.is(hit.header("x-evident-cache"), "hit");
    t.is(hit.header("x-request-id"), "ec-envoy-hit");
    t.is(hit.header("content-type"), "application/json; charset=utf-8");
    t.truthy(hit.header("x-ratelimit-remaining-requests"));
    t.is(contentOf(hit.body), "cached answer");
    t.is(upstream.requests.length, before);
    const hitAudit = await auditOf(key, "ec-envoy-hit");
    t.is(hitAudit.outcome, "served_from_cache");
    t.is(hitAudit.details?.cache?.result, "hit");

    // A streamed hit through Envoy: replayed as server-sent events, like REST.
    const streamed = await viaEnvoy(key, ask("envoy cache one", { stream: true }), "ec-sse");
    const restStreamed = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(ask("envoy cache one", { stream: true })),
    });
    t.is(streamed.status, 200);
    t.is(streamed.header("content-type"), "text/event-stream; charset=utf-8");
    t.is(sseText(streamed.body), "cached answer");
    t.is(sseText(streamed.body), sseText(await restStreamed.text()));
    t.true(streamed.body.endsWith("data: [DONE]\n\n"));
    t.is(upstream.requests.length, before);

    // Another customer's identical call through Envoy is a miss: never across customers.
    upstream.script.next({ chunks: ["fresh"] });
    const otherCall = await viaEnvoy(other, ask("envoy cache one"), "ec-other");
    t.is(otherCall.answeredBy, "upstream");
    t.is(otherCall.header("x-evident-cache"), "miss");
    t.is(contentOf(otherCall.body), "fresh");

    // Stored by an Envoy miss (the relayed response), served by REST.
    upstream.script.next({ chunks: ["from ", "envoy"] });
    const envoyMiss = await viaEnvoy(key, ask("envoy cache two"), "ec-envoy-miss");
    t.is(envoyMiss.answeredBy, "upstream");
    t.is(envoyMiss.header("x-evident-cache"), "miss");
    t.true(await within(20_000, async () => (await stored()) === 2));
    const restHit = await viaRest(key, ask("envoy cache two"), "ec-rest-hit");
    t.is(restHit.header("x-evident-cache"), "hit");
    t.is(contentOf(restHit.body), "from envoy");

    // The stored answer still passes output guardrails under the current policy on Envoy.
    upstream.script.next({ chunks: ["mail jane.doe@example.com today"] });
    await viaRest(key, ask("envoy cache three"), "ec-rest-pii");
    t.true(await within(20_000, async () => (await stored()) === 3));
    const guarded = await viaEnvoy(key, ask("envoy cache three"), "ec-envoy-pii");
    t.is(guarded.header("x-evident-cache"), "hit");
    t.notRegex(guarded.body, /jane\.doe/);
  },
);

test.serial(
  "parity REST vs Envoy (Envoy test double): an evident.prompt reference is rendered into the forwarded body",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const api = (method: string, path: string, body?: unknown) =>
      call(gateway.url, method, `/api/v1/prompts${path}`, key, body);
    t.is((await api("POST", "", { slug: "envoy-greet" })).status, 201);
    await api("POST", "/envoy-greet/versions", {
      messages: [
        { role: "system", content: "You answer for {{company}}." },
        { role: "user", content: "{{question}}" },
      ],
      variables: ["company", "question"],
      params: { temperature: 0.3 },
    });
    t.is((await api("POST", "/envoy-greet/versions/1/publish")).status, 200);
    const body = {
      model: "ep-model",
      evident: {
        prompt: { slug: "envoy-greet", variables: { company: "ACME", question: "opening hours?" } },
      },
    };
    const restFrom = upstream.requests.length;
    const rest = await viaRest(key, body, "ep-rest");
    t.is(rest.status, 200, rest.body);
    const restSent = upstream.requests[restFrom]?.body as Record<string, unknown>;
    const proxied = await viaEnvoy(key, body, "ep-envoy");
    t.is(proxied.status, 200, proxied.body);
    const envoySent = JSON.parse(proxied.forwarded?.body ?? "{}") as Record<string, unknown>;
    t.deepEqual(envoySent.messages, [
      { role: "system", content: "You answer for ACME." },
      { role: "user", content: "opening hours?" },
    ]);
    t.is(envoySent.temperature, 0.3);
    t.is(envoySent.evident, undefined, "our extension never reaches the backend");
    t.deepEqual(envoySent.messages, restSent.messages);
    const restAudit = await auditOf(key, "ep-rest");
    const envoyAudit = await auditOf(key, "ep-envoy");
    t.deepEqual(envoyAudit.details?.prompt, restAudit.details?.prompt);
    t.is(envoyAudit.details?.prompt?.version, 1);

    // Refusals match: a missing variable is a 422 naming it on both.
    const missing = {
      model: "ep-model",
      evident: { prompt: { slug: "envoy-greet", variables: { company: "ACME" } } },
    };
    const restMissing = await viaRest(key, missing, "ep-rest-missing");
    const envoyMissing = await viaEnvoy(key, missing, "ep-envoy-missing");
    t.is(restMissing.status, 422);
    t.is(envoyMissing.status, 422);
    t.deepEqual(JSON.parse(envoyMissing.body).error, JSON.parse(restMissing.body).error);
    t.is((await auditOf(key, "ep-envoy-missing")).outcome, "refused");
  },
);
