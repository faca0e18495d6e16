import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel, runDeployment } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let upstream: FakeUpstream;
const chat = (model: string, key = gateway.adminKey) =>
  call(gateway.url, "POST", "/v1/chat/completions", key, {
    model,
    messages: [{ role: "user", content: "hi" }],
  });

test.before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestApp({ env: { UPSTREAM_ALLOWED_CIDRS: "127.0.0.1/32" } });
});
test.after.always(async () => {
  await gateway?.close();
  await upstream?.close();
});

test("model name+version is unique and immutable: duplicates get 409, frozen fields 422 naming them", async (t) => {
  const body = {
    name: "immutable",
    version: "1.0",
    pricing: { input_per_1k: 0.5, output_per_1k: 1.5 },
  };
  const first = await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, body);
  t.is(first.status, 201);
  t.is(first.json.status, "registered");
  t.deepEqual(first.json.pricing, { input_per_1k: 0.5, output_per_1k: 1.5 });
  const dup = await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, body);
  t.is(dup.status, 409);
  t.is(errorOf(dup.json).code, "model_version_exists");
  const id = first.json.id as string;
  const frozen = await call(gateway.url, "PATCH", `/api/v1/models/${id}`, gateway.adminKey, {
    version: "2.0",
  });
  t.is(frozen.status, 422);
  t.regex(errorOf(frozen.json).message, /version is frozen/);
  const ok = await call(gateway.url, "PATCH", `/api/v1/models/${id}`, gateway.adminKey, {
    status: "ready",
    engine_artifacts: { weights: "s3://bucket/w" },
  });
  t.is(ok.status, 200);
  t.is(ok.json.status, "ready");
  t.deepEqual(ok.json.engine_artifacts, { weights: "s3://bucket/w" });
  const v2 = await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, {
    ...body,
    version: "2.0",
  });
  t.is(v2.status, 201, "a new version is a new registration");
});

test("model list filters by status, modality and architecture; bad filters are 422", async (t) => {
  await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, {
    name: "emb-f",
    version: "1",
    modality: "embedding",
    architecture: "bert",
  });
  const emb = await call(
    gateway.url,
    "GET",
    "/api/v1/models?modality=embedding&architecture=bert",
    gateway.adminKey,
  );
  const names = (emb.json.data as { name: string }[]).map((m) => m.name);
  t.deepEqual(names, ["emb-f"]);
  t.is(
    (await call(gateway.url, "GET", "/api/v1/models?status=sleeping", gateway.adminKey)).status,
    422,
  );
  t.is(
    (await call(gateway.url, "GET", "/api/v1/models?modality=video", gateway.adminKey)).status,
    422,
  );
});

test("only admins change the registry", async (t) => {
  const member = await customerKey(gateway.url, gateway.adminKey, "enterprise");
  const res = await call(gateway.url, "POST", "/api/v1/models", member, {
    name: "m",
    version: "1",
  });
  t.is(res.status, 403);
  t.is((await call(gateway.url, "GET", "/api/v1/models", member)).status, 200, "anyone may read");
});

test("deployment lifecycle: illegal moves are 409, running needs an endpoint, routing follows the state (fake upstream)", async (t) => {
  const model = await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, {
    name: "lifecycle",
    version: "1",
  });
  const dep = await call(gateway.url, "POST", "/api/v1/deployments", gateway.adminKey, {
    model_id: model.json.id,
    scaling: { min_replicas: 1, max_replicas: 3, target_concurrency: 8 },
  });
  t.is(dep.status, 201);
  t.is(dep.json.status, "pending");
  t.deepEqual(dep.json.scaling, { min_replicas: 1, max_replicas: 3, target_concurrency: 8 });
  const id = dep.json.id as string;
  const patch = (b: object) =>
    call(gateway.url, "PATCH", `/api/v1/deployments/${id}`, gateway.adminKey, b);

  const skip = await patch({ status: "running", endpoint_url: upstream.url });
  t.is(skip.status, 409);
  t.is(errorOf(skip.json).code, "invalid_state_transition");
  t.is((await patch({ status: "provisioning" })).status, 200);
  t.is((await chat("lifecycle")).status, 404, "not routable before running");
  const noUrl = await patch({ status: "running" });
  t.is(noUrl.status, 422);
  t.is((await patch({ status: "running", endpoint_url: "ftp://nope" })).status, 422);
  t.is((await patch({ status: "running", endpoint_url: upstream.url })).status, 200);
  t.is((await chat("lifecycle")).status, 200, "routable once running with an endpoint");
  t.is(
    (await patch({ status: "failed" })).status,
    409,
    "running cannot go back to failed by PATCH",
  );

  const removeModel = await call(
    gateway.url,
    "DELETE",
    `/api/v1/models/${model.json.id as string}`,
    gateway.adminKey,
  );
  t.is(removeModel.status, 409);
  t.is(errorOf(removeModel.json).code, "model_has_active_deployments");

  const del = await call(gateway.url, "DELETE", `/api/v1/deployments/${id}`, gateway.adminKey);
  t.is(del.status, 200);
  t.is(del.json.status, "terminated");
  t.is((await chat("lifecycle")).status, 404, "removed from routing");
  t.is((await patch({ status: "provisioning" })).status, 409, "terminated is final");
  const gone = await call(
    gateway.url,
    "DELETE",
    `/api/v1/models/${model.json.id as string}`,
    gateway.adminKey,
  );
  t.is(gone.status, 200);
  t.is(gone.json.status, "deregistered");
  const filtered = await call(
    gateway.url,
    "GET",
    `/api/v1/deployments?status=terminated&model_id=${model.json.id as string}`,
    gateway.adminKey,
  );
  t.is((filtered.json.data as unknown[]).length, 1);
});

test("a pending deployment can fail, and a failed one is final", async (t) => {
  const model = await call(gateway.url, "POST", "/api/v1/models", gateway.adminKey, {
    name: "will-fail",
    version: "1",
  });
  const dep = await call(gateway.url, "POST", "/api/v1/deployments", gateway.adminKey, {
    model_id: model.json.id,
  });
  const id = dep.json.id as string;
  const failed = await call(gateway.url, "PATCH", `/api/v1/deployments/${id}`, gateway.adminKey, {
    status: "failed",
    reason: "ImagePullBackOff",
  });
  t.is(failed.json.status, "failed");
  t.is(failed.json.reason, "ImagePullBackOff");
  t.is(
    (
      await call(gateway.url, "PATCH", `/api/v1/deployments/${id}`, gateway.adminKey, {
        status: "provisioning",
      })
    ).status,
    409,
  );
  t.is(
    (
      await call(gateway.url, "POST", "/api/v1/deployments", gateway.adminKey, {
        model_id: "mdl_nope",
      })
    ).status,
    422,
  );
});

test("two running deployments share load, and a dead one is skipped (fake upstreams)", async (t) => {
  const second = await startFakeUpstream();
  try {
    const { modelId } = await deployModel(
      gateway.url,
      gateway.adminKey,
      { name: "shared" },
      upstream.url,
    );
    await runDeployment(gateway.url, gateway.adminKey, modelId, second.url);
    await runDeployment(gateway.url, gateway.adminKey, modelId, "http://127.0.0.1:9/v1"); // refuses connections
    const before = [upstream.requests.length, second.requests.length];
    for (let i = 0; i < 12; i++) t.is((await chat("shared")).status, 200);
    const a = upstream.requests.length - (before[0] ?? 0);
    const b = second.requests.length - (before[1] ?? 0);
    t.is(a + b, 12, "every call succeeded on a live deployment");
    t.true(a >= 3 && b >= 3, `load is shared (${a} / ${b})`);
    // Right after a call that met the dead deployment, it is in cool-down (checked call by call:
    // on a slow machine the cool-down can end while a longer series runs).
    let cooling = false;
    for (let i = 0; i < 6 && !cooling; i++) {
      t.is((await chat("shared")).status, 200);
      const health = await call(gateway.url, "GET", "/api/v1/system/health", gateway.adminKey);
      cooling = (health.json.backends as { healthy: boolean }[]).some((x) => !x.healthy);
    }
    t.true(cooling, "the dead deployment is in cool-down");
  } finally {
    await second.close();
  }
});

test("a customer's backend: credential encrypted and never returned, sent to the backend, catalogue lists it (fake upstream)", async (t) => {
  const recording = await startFakeUpstream({ recordAuthorization: true });
  try {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    const reg = await call(gateway.url, "POST", "/api/v1/gateway/backends", key, {
      name: "my vllm",
      base_url: recording.url,
      credential: "upstream-secret-123",
      models: ["byo-model"],
    });
    t.is(reg.status, 201);
    t.is(reg.json.has_credential, true);
    t.false(JSON.stringify(reg.json).includes("upstream-secret-123"));
    const list = await call(gateway.url, "GET", "/api/v1/gateway/backends", key);
    t.false(JSON.stringify(list.json).includes("upstream-secret-123"));
    const stored = await gateway.app.ctx.db.query<{ credential_ciphertext: string }>(
      "SELECT credential_ciphertext FROM backends",
    );
    t.false(
      stored.some((r) => r.credential_ciphertext.includes("upstream-secret")),
      "encrypted at rest",
    );

    t.is((await chat("byo-model", key)).status, 200);
    t.is(recording.requests.at(-1)?.headers.authorization, "Bearer upstream-secret-123");
    t.is((await chat("byo-model")).status, 404, "another customer cannot use it");
    const catalog = await call(gateway.url, "GET", "/api/v1/gateway/catalog", key);
    const entry = (catalog.json.data as { model: string; required_tier: string }[]).find(
      (m) => m.model === "byo-model",
    );
    t.is(entry?.required_tier, "free");

    const other = await customerKey(gateway.url, gateway.adminKey, "pro");
    t.is(
      (
        await call(
          gateway.url,
          "DELETE",
          `/api/v1/gateway/backends/${reg.json.id as string}`,
          other,
        )
      ).status,
      404,
    );
    t.is(
      (await call(gateway.url, "DELETE", `/api/v1/gateway/backends/${reg.json.id as string}`, key))
        .status,
      200,
    );
    t.is((await chat("byo-model", key)).status, 404);
  } finally {
    await recording.close();
  }
});
