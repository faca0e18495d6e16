import test from "ava";
import { GatewayError } from "../../dataplane/core/errors.js";
import { FakeNativeApiServer } from "../testing/fake-native-api-server.js";
import { httpNativeApi } from "./native-client.js";
import { modelBody, routeBody } from "./native-request-bodies.js";

const KEY = "ev_sk_0123456789abcdefghijklmnopqrstuvwxyzAB";

async function withServer(t: { teardown(fn: () => Promise<void>): void }) {
  const server = new FakeNativeApiServer(KEY);
  await server.start();
  t.teardown(() => server.stop());
  return { server, api: httpNativeApi({ baseUrl: `${server.url}/`, apiKey: KEY }) };
}

const MODEL = modelBody({
  deletionPolicy: "Retain",
  name: "m",
  version: "1",
  modality: "text",
  engine: "vllm",
  requiredTier: "free",
  pricing: { inputPer1k: 1, outputPer1k: 2 },
});

test("CR specs map to the snake_case bodies of the native API", (t) => {
  t.deepEqual(MODEL, {
    name: "m",
    version: "1",
    modality: "text",
    aliases: [],
    required_tier: "free",
    pricing: { input_per_1k: 1, output_per_1k: 2 },
    engine_artifacts: {},
  });
  t.deepEqual(
    routeBody(
      {
        deletionPolicy: "Delete",
        customerId: "c",
        match: { model: "x" },
        strategy: "ab",
        targets: [{ model: "y", weight: 1 }],
        enabled: false,
      },
      "cr-name",
    ),
    {
      customer_id: "c",
      name: "cr-name",
      match: { model: "x" },
      strategy: "ab",
      targets: [{ model: "y", weight: 1 }],
      enabled: false,
    },
  );
});

test("the HTTP client creates, reads, finds and deletes models against the native API double", async (t) => {
  const { api, server } = await withServer(t);
  const created = await api.models.create(MODEL);
  t.truthy(created.id);
  t.is((await api.models.get(created.id))?.name, "m");
  t.is((await api.models.find("m", "1"))?.id, created.id);
  t.is(await api.models.find("m", "2"), undefined);
  await api.models.delete(created.id);
  t.is((await api.models.get(created.id))?.status, "deregistered");
  await t.notThrowsAsync(api.models.delete(created.id));
  t.true(server.requests.includes(`DELETE /api/v1/models/${created.id}`));
});

test("error envelopes become GatewayErrors with the API's code and validation detail", async (t) => {
  const { api } = await withServer(t);
  await api.models.create(MODEL);
  const duplicate = await t.throwsAsync(api.models.create(MODEL));
  t.is((duplicate as GatewayError).code, "model_version_exists");
  const invalid = await t.throwsAsync(
    api.routes.create({
      customer_id: "c",
      strategy: "weighted",
      targets: [],
      enabled: true,
      match: { model: "x" },
    }),
  );
  t.is((invalid as GatewayError).status, 422);
  t.deepEqual((invalid as GatewayError).detail?.[0]?.loc, ["body", "targets"]);
});

test("a wrong admin key is invalid_api_key and an unreachable API is upstream_unavailable", async (t) => {
  const { server } = await withServer(t);
  const wrongKey = httpNativeApi({ baseUrl: server.url, apiKey: "ev_sk_wrong" });
  const err = await t.throwsAsync(wrongKey.models.get("x"));
  t.is((err as GatewayError).code, "invalid_api_key");
  const down = httpNativeApi({ baseUrl: "http://127.0.0.1:1", apiKey: KEY });
  const unreachable = await t.throwsAsync(down.models.get("x"));
  t.is((unreachable as GatewayError).code, "upstream_unavailable");
});

test("deployments follow the state machine over HTTP and legal holds list and release", async (t) => {
  const { api, server } = await withServer(t);
  const model = await api.models.create(MODEL);
  const deployment = await api.deployments.create({
    model_id: model.id,
    scaling: { min_replicas: 1, max_replicas: 1 },
  });
  t.is(deployment.status, "pending");
  const illegal = await t.throwsAsync(api.deployments.patch(deployment.id, { status: "running" }));
  t.is((illegal as GatewayError).code, "invalid_state_transition");
  await api.deployments.patch(deployment.id, { status: "provisioning" });
  const running = await api.deployments.patch(deployment.id, {
    status: "running",
    endpoint_url: "http://x.ns.svc:8000/v1",
  });
  t.is(running.endpoint_url, "http://x.ns.svc:8000/v1");
  const hold = await api.legalHolds.create({
    customer_id: "c",
    from: "2026-01-01",
    to: "2026-02-01",
    reason: "r",
    scope: { model: "m", key_ids: ["k1"] },
  });
  t.true(server.requests.includes("POST /api/v1/audit/legal-hold"));
  t.like(hold, { customer_id: "c", scope: { model: "m", key_ids: ["k1"] } });
  t.deepEqual(
    (await api.legalHolds.list("c")).map((h) => h.id),
    [hold.id],
  );
  t.deepEqual(await api.legalHolds.list("someone-else"), []);
  await api.legalHolds.delete(hold.id);
  t.false((await api.legalHolds.list("c"))[0]?.active);
  t.is(await api.routes.get("nope"), undefined);
});
