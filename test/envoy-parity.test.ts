import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { headerValue } from "./fakes/envoy-client.js";
import { connectEnvoy, throughEnvoy, type EnvoyClients } from "./fakes/envoy-round-trip.js";
import {
  startFakeUpstream,
  type Behaviour,
  type FakeUpstream,
} from "./fakes/fake-openai-upstream.js";
import { errorCodeOf, generatedContentOf } from "./support/answer-body.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

/**
 * Parity: the same requests through the REST façade and through Envoy (the "Envoy plays" test
 * double driving the ext_authz and ext_proc adapters) get the same decisions, the same error codes
 * and the same audit records.
 */
let gateway: RunningApp;
let upstream: FakeUpstream;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let proKey: string;
let revokedKey: string;

test.before(async () => {
  upstream = await startFakeUpstream();
  // Envoy does not retry on our behalf (its own retry_policy would); compare without retries.
  gateway = await startTestApp({ env: { UPSTREAM_RETRIES: "0" } });
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "same" }, upstream.url);
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "same-premium", required_tier: "enterprise" },
    upstream.url,
  );
  proKey = await customerKey(gateway.url, gateway.adminKey, "pro");
  const key = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: "default",
    name: "revoked",
  });
  revokedKey = key.json.key as string;
  await call(gateway.url, "DELETE", `/api/v1/keys/${key.json.id as string}`, gateway.adminKey);
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
  await upstream?.close();
});

interface Case {
  name: string;
  path?: string;
  key?: string | (() => string);
  body: Record<string, unknown> | string | undefined;
  headers?: Record<string, string>;
  /** Behaviour of the backend for this request (queued once per transport). */
  backend?: Behaviour;
}

/** Calls that reach the pipeline leave one audit record; refusals before it (auth, parsing) none. */
const AUDITED = new Set([
  // Calls refused for malformed input are recorded too (docs/api.md).
  "validation",
  "bad-json",
  "completion",
  "stream",
  "embeddings",
  "tier",
  "unknown-model",
  "backend-5xx",
  "backend-4xx",
]);

const messages = [{ role: "user", content: "tell me something" }];
const cases: Case[] = [
  { name: "completion", body: { model: "same", messages }, backend: { chunks: ["a", "b"] } },
  {
    name: "stream",
    body: { model: "same", messages, stream: true },
    backend: { chunks: ["x ", "y ", "z"] },
  },
  { name: "embeddings", path: "/v1/embeddings", body: { model: "same", input: "hello" } },
  { name: "no-key", key: "", body: { model: "same", messages } },
  {
    name: "wrong-prefix",
    key: "sk-abcdefabcdefabcdefabcdefabcdefabcdef",
    body: { model: "same", messages },
  },
  { name: "revoked", key: () => revokedKey, body: { model: "same", messages } },
  { name: "tier", body: { model: "same-premium", messages } },
  { name: "unknown-model", body: { model: "no-such", messages } },
  { name: "validation", body: { model: "same", messages: [] } },
  { name: "bad-json", body: "{oops" },
  {
    name: "bad-classification",
    body: { model: "same", messages },
    headers: { "x-data-classification": "nope" },
  },
  { name: "backend-5xx", body: { model: "same", messages }, backend: { status: 503 } },
  { name: "backend-4xx", body: { model: "same", messages }, backend: { status: 400 } },
];

interface Seen {
  status: number;
  code: string | undefined;
  requestIdHeader: string | undefined;
  content: string;
}

interface AuditView {
  outcome: string;
  status: number;
  error_code: string | null;
  model: string | null;
}

function keyOf(c: Case): string {
  return typeof c.key === "function" ? c.key() : (c.key ?? proKey);
}

async function viaRest(c: Case, requestId: string): Promise<Seen> {
  const key = keyOf(c);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-request-id": requestId,
    ...c.headers,
  };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${gateway.url}${c.path ?? "/v1/chat/completions"}`, {
    method: "POST",
    headers,
    body: typeof c.body === "string" ? c.body : JSON.stringify(c.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    code: errorCodeOf(text),
    requestIdHeader: res.headers.get("x-request-id") ?? undefined,
    content: res.status === 200 ? generatedContentOf(text) : "",
  };
}

async function viaEnvoy(c: Case, requestId: string): Promise<Seen> {
  const key = keyOf(c);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-request-id": requestId,
    ...c.headers,
  };
  if (key) headers.authorization = `Bearer ${key}`;
  const exchange = await throughEnvoy(envoy, {
    method: "POST",
    path: c.path ?? "/v1/chat/completions",
    headers,
    body: typeof c.body === "string" ? c.body : JSON.stringify(c.body),
  });
  return {
    status: exchange.status,
    code: errorCodeOf(exchange.body),
    requestIdHeader: headerValue(exchange.headers, "x-request-id"),
    content: exchange.status === 200 ? generatedContentOf(exchange.body) : "",
  };
}

async function auditOf(requestId: string, expected = true): Promise<AuditView[]> {
  // Waits on an expected record (generous for a busy machine); otherwise reports what is there.
  for (const deadline = Date.now() + (expected ? 30_000 : 0); ;) {
    const res = await call(
      gateway.url,
      "GET",
      `/api/v1/audit/records?request_id=${requestId}`,
      proKey,
    );
    const rows = (res.json.data as AuditView[] | undefined) ?? [];
    if (rows.length > 0 || Date.now() >= deadline) {
      return rows.map((r) => ({
        outcome: r.outcome,
        status: r.status,
        error_code: r.error_code,
        model: r.model,
      }));
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const c of cases) {
  test.serial(`parity REST vs Envoy (Envoy test double): ${c.name}`, async (t) => {
    if (c.backend) upstream.script.next(c.backend);
    const rest = await viaRest(c, `parity-rest-${c.name}`);
    if (c.backend) upstream.script.next(c.backend);
    const viaProxy = await viaEnvoy(c, `parity-envoy-${c.name}`);
    t.is(upstream.script.pending(), 0, "each transport reached the backend as scripted");
    t.deepEqual(
      { ...viaProxy, requestIdHeader: viaProxy.requestIdHeader === `parity-envoy-${c.name}` },
      { ...rest, requestIdHeader: rest.requestIdHeader === `parity-rest-${c.name}` },
    );
    const restAudit = await auditOf(`parity-rest-${c.name}`, AUDITED.has(c.name));
    const envoyAudit = await auditOf(`parity-envoy-${c.name}`, AUDITED.has(c.name));
    t.is(restAudit.length, AUDITED.has(c.name) ? 1 : 0);
    t.deepEqual(envoyAudit, restAudit);
  });
}

test.serial(
  "parity REST vs Envoy (Envoy test double): rate limit 429 with Retry-After and X-RateLimit-*",
  async (t) => {
    const freeKey = await limitedKey(2);
    const c: Case = { name: "limited", key: freeKey, body: { model: "same", messages } };
    // Use up the requests per minute, half through each transport.
    let ok = 0;
    for (let i = 0; i < 40 && ok < 40; i++) {
      const seen =
        i % 2 === 0 ? await viaRest(c, `limit-warm-${i}`) : await viaEnvoy(c, `limit-warm-e${i}`);
      if (seen.status !== 200) break;
      ok += 1;
    }
    t.true(ok > 0 && ok < 40, `the limit was reached after ${ok} calls`);
    const rest = await fetchHeaders(c, "parity-rest-limited", "rest");
    const viaProxy = await fetchHeaders(c, "parity-envoy-limited", "envoy");
    t.is(rest.status, 429);
    t.deepEqual(viaProxy, rest);
    const restAudit = await auditAs(freeKey, "parity-rest-limited");
    t.is(restAudit[0]?.outcome, "rate_limited");
    t.deepEqual(await auditAs(freeKey, "parity-envoy-limited"), restAudit);
  },
);

/**
 * A key of a free-tier customer whose limit an admin lowered to `perMinute` requests a minute: the
 * slot that frees up every 60 / perMinute seconds cannot turn the 429s this test compares into
 * 200s while a loaded machine runs it (the free tier's 20 a minute free one every 3 s).
 */
async function limitedKey(perMinute: number): Promise<string> {
  const customer = await call(gateway.url, "POST", "/api/v1/customers", gateway.adminKey, {
    name: "c-limited",
    tier: "free",
  });
  const id = customer.json.id as string;
  const limits = await call(
    gateway.url,
    "PATCH",
    `/api/v1/budget/config?customer_id=${id}`,
    gateway.adminKey,
    { rate_limits: { requests_per_minute: perMinute } },
  );
  if (limits.status !== 200) throw new Error(`rate limits not set: ${limits.status}`);
  const key = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: id,
    name: "k",
  });
  return key.json.key as string;
}

/** Status, code and which rate-limit headers the caller got. */
async function fetchHeaders(c: Case, requestId: string, transport: "rest" | "envoy") {
  const key = keyOf(c);
  const headers = {
    "content-type": "application/json",
    "x-request-id": requestId,
    authorization: `Bearer ${key}`,
  };
  const body = JSON.stringify(c.body);
  let status: number;
  let text: string;
  let get: (name: string) => string | undefined;
  if (transport === "rest") {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body,
    });
    status = res.status;
    text = await res.text();
    get = (name) => res.headers.get(name) ?? undefined;
  } else {
    const exchange = await throughEnvoy(envoy, {
      method: "POST",
      path: "/v1/chat/completions",
      headers,
      body,
    });
    status = exchange.status;
    text = exchange.body;
    get = (name) => headerValue(exchange.headers, name);
  }
  return {
    status,
    code: errorCodeOf(text),
    retryAfter: get("retry-after") !== undefined,
    limitHeaders: ["x-ratelimit-limit-requests", "x-ratelimit-remaining-requests"].map(
      (h) => get(h) !== undefined,
    ),
    requestId: get("x-request-id") === requestId,
  };
}

async function auditAs(key: string, requestId: string): Promise<AuditView[]> {
  const res = await call(gateway.url, "GET", `/api/v1/audit/records?request_id=${requestId}`, key);
  return ((res.json.data as AuditView[] | undefined) ?? []).map((r) => ({
    outcome: r.outcome,
    status: r.status,
    error_code: r.error_code,
    model: r.model,
  }));
}
