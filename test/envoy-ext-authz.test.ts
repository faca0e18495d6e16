import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { connectEnvoy, headerValue, sendCheck, type EnvoyClients } from "./fakes/envoy-client.js";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let proKey: string;
let proCustomerId: string;

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp();
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "authz-open" }, upstream.url);
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "authz-premium", required_tier: "enterprise" },
    upstream.url,
  );
  const customer = await call(gateway.url, "POST", "/api/v1/customers", gateway.adminKey, {
    name: "authz-pro",
    tier: "pro",
  });
  proCustomerId = customer.json.id as string;
  const key = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: proCustomerId,
    name: "k",
  });
  proKey = key.json.key as string;
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
  await upstream?.close();
});

const chat = (headers: Record<string, string>) => ({
  method: "POST",
  path: "/v1/chat/completions",
  headers: { "content-type": "application/json", ...headers },
});

test("ext_authz (Envoy test double): a valid key is allowed with identity headers for the upstream", async (t) => {
  const outcome = await sendCheck(
    envoy.authorization,
    chat({
      authorization: `Bearer ${proKey}`,
      "x-request-id": "authz-allow-1",
      "x-data-classification": "Confidential",
      // A caller cannot forge what only the gateway sets.
      "x-evident-customer-id": "someone-else",
    }),
  );
  if (outcome.kind !== "allowed") return t.fail(`expected allowed, got ${outcome.kind}`);
  const headers = outcome.upstream.headers;
  t.is(headerValue(headers, "x-evident-customer-id"), proCustomerId);
  t.is(headerValue(headers, "x-request-id"), "authz-allow-1");
  t.is(headerValue(headers, "x-evident-classification"), "confidential");
  // ext_proc runs next and authenticates from the same header; it removes it (default).
  t.is(headerValue(headers, "authorization"), `Bearer ${proKey}`);
});

test("ext_authz (Envoy test double): denials carry the status, our envelope and X-Request-ID", async (t) => {
  const revoked = await call(gateway.url, "POST", "/api/v1/keys", gateway.adminKey, {
    customer_id: "default",
    name: "to-revoke",
  });
  const revokedKey = revoked.json.key as string;
  if (revoked.status === 201) {
    await call(
      gateway.url,
      "DELETE",
      `/api/v1/keys/${revoked.json.id as string}`,
      gateway.adminKey,
    );
  }
  const cases: { name: string; headers: Record<string, string>; status: number; code: string }[] = [
    { name: "no key", headers: {}, status: 401, code: "invalid_api_key" },
    {
      name: "wrong prefix",
      headers: { authorization: "Bearer sk-abcdefabcdefabcdefabcdefabcdefabcdef" },
      status: 401,
      code: "invalid_api_key",
    },
    {
      name: "tier (model named in x-evident-model)",
      headers: { authorization: `Bearer ${proKey}`, "x-evident-model": "authz-premium" },
      status: 403,
      code: "tier_restricted",
    },
    {
      name: "unknown model (x-evident-model)",
      headers: { authorization: `Bearer ${proKey}`, "x-evident-model": "no-such-model" },
      status: 404,
      code: "model_not_found",
    },
    {
      name: "bad classification",
      headers: { authorization: `Bearer ${proKey}`, "x-data-classification": "secret-ish" },
      status: 422,
      code: "validation_failed",
    },
  ];
  if (revoked.status === 201) {
    cases.push({
      name: "revoked key",
      headers: { authorization: `Bearer ${revokedKey}` },
      status: 401,
      code: "invalid_api_key",
    });
  }
  t.true(revoked.status === 201, "the revoked-key case ran");
  for (const c of cases) {
    const outcome = await sendCheck(
      envoy.authorization,
      chat({ ...c.headers, "x-request-id": `deny-${c.status}` }),
    );
    if (outcome.kind !== "denied") {
      t.fail(`${c.name}: expected denied, got ${outcome.kind}`);
      continue;
    }
    t.is(outcome.caller.status, c.status, c.name);
    const body = JSON.parse(outcome.caller.body) as { error: { code: string; type: string } };
    t.is(body.error.code, c.code, c.name);
    t.is(headerValue(outcome.caller.headers, "x-request-id"), `deny-${c.status}`, c.name);
    t.regex(headerValue(outcome.caller.headers, "content-type") ?? "", /application\/json/, c.name);
  }
});

test("ext_authz (Envoy test double): probes pass without a key; other paths need one", async (t) => {
  for (const path of ["/healthz", "/readyz"]) {
    const outcome = await sendCheck(envoy.authorization, { method: "GET", path });
    t.is(outcome.kind, "allowed", path);
  }
  const models = await sendCheck(envoy.authorization, { method: "GET", path: "/v1/models" });
  t.is(models.kind, "denied");
});

test("ext_authz (Envoy test double): removes the caller's key when configured to", async (t) => {
  const alone = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1", {
    removeAuthorizationIn: "ext_authz",
  }))!;
  const client = connectEnvoy(`127.0.0.1:${alone.port}`);
  try {
    const outcome = await sendCheck(
      client.authorization,
      chat({ authorization: `Bearer ${proKey}` }),
    );
    if (outcome.kind !== "allowed") return t.fail(outcome.kind);
    t.is(headerValue(outcome.upstream.headers, "authorization"), undefined);
    t.truthy(headerValue(outcome.upstream.headers, "x-evident-customer-id"));
  } finally {
    client.close();
    await alone.close();
  }
});
