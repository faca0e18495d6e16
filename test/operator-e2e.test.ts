import test from "ava";
import { DEPLOYMENTS, GUARDRAIL_RULES, LEGAL_HOLDS, MODELS } from "../operator/kube/resources.js";
import { startOperatorRig } from "../operator/testing/operator-rig.js";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { call, errorOf, startTestApp } from "./support/test-app.js";

test("end to end without a cluster (fake Kubernetes API server, fake upstream): Model + Deployment CRs make a model routable through the real data plane; deleting the Deployment removes it", async (t) => {
  const upstream = await startFakeUpstream();
  const app = await startTestApp();
  const rig = await startOperatorRig({
    nativeUrl: app.url,
    adminKey: app.adminKey,
    endpointTemplate: upstream.url,
  });
  const chat = (content = "hello") =>
    call(app.url, "POST", "/v1/chat/completions", app.adminKey, {
      model: "llama-e2e",
      messages: [{ role: "user", content }],
    });
  try {
    rig.startReplica("op-1");
    t.is((await chat()).status, 404);
    rig.apply(MODELS, "llama-e2e", {
      name: "llama-e2e",
      version: "1",
      engine: "vllm",
      modality: "text",
      requiredTier: "free",
    });
    rig.apply(DEPLOYMENTS, "llama-e2e-serve", { modelRef: "llama-e2e", port: 8000 });
    await rig.until(
      () => rig.status(DEPLOYMENTS, "llama-e2e-serve").phase === "provisioning",
      20_000,
    );
    rig.markWorkloadAvailable("llama-e2e-serve");
    await rig.until(() => rig.status(DEPLOYMENTS, "llama-e2e-serve").phase === "running", 20_000);
    const served = await chat();
    t.is(served.status, 200, JSON.stringify(served.json));
    t.is((upstream.requests.at(-1)?.body as { model: string }).model, "llama-e2e");
    const modelId = rig.status(MODELS, "llama-e2e").modelId as string;
    t.is(
      (await call(app.url, "GET", `/api/v1/models/${modelId}`, app.adminKey)).status,
      200,
      "registered through the native API",
    );

    rig.apply(GUARDRAIL_RULES, "no-codenames", {
      customerId: "default",
      name: "no codenames",
      kind: "keyword",
      keywords: ["bluebird"],
      action: "block",
      appliesTo: "input",
      enabled: true,
    });
    await rig
      .until(() => typeof rig.status(GUARDRAIL_RULES, "no-codenames").ruleId === "string", 20_000)
      .catch((err: unknown) => {
        const status = JSON.stringify(rig.status(GUARDRAIL_RULES, "no-codenames"));
        throw new Error(`the rule never synced: ${status}`, { cause: err });
      });
    const blocked = await chat("tell me about bluebird");
    t.is(blocked.status, 400);
    t.is(errorOf(blocked.json).code, "custom_rule_block");

    rig.apply(LEGAL_HOLDS, "case-17", {
      customerId: "default",
      from: "2026-01-01T00:00:00Z",
      to: "2026-12-31T00:00:00Z",
      reason: "case 17",
    });
    await rig.until(() => typeof rig.status(LEGAL_HOLDS, "case-17").holdId === "string", 20_000);
    const holds = await call(app.url, "GET", "/api/v1/audit/legal-hold", app.adminKey);
    t.true(
      (holds.json.data as { reason: string; active: boolean }[]).some(
        (h) => h.reason === "case 17" && h.active,
      ),
    );

    rig.remove(DEPLOYMENTS, "llama-e2e-serve");
    await rig.until(() => !rig.exists(DEPLOYMENTS, "llama-e2e-serve"), 20_000);
    t.is((await chat()).status, 404, "removed from routing");
  } finally {
    await rig.stop();
    await app.close();
    await upstream.close();
  }
});
