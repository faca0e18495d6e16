import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { call, startTestApp, type RunningApp } from "./test-app.js";

export interface ModelSpec {
  name: string;
  version?: string;
  aliases?: string[];
  required_tier?: string;
  modality?: string;
  pricing?: { input_per_1k: number; output_per_1k: number };
}

/** Registers a model and takes one deployment of it to running at `endpointUrl`, through the API. */
export async function deployModel(
  gateway: string,
  adminKey: string,
  spec: ModelSpec,
  endpointUrl: string,
): Promise<{ modelId: string; deploymentId: string }> {
  const model = await call(gateway, "POST", "/api/v1/models", adminKey, { version: "1", ...spec });
  if (model.status !== 201) throw new Error(`register failed: ${JSON.stringify(model.json)}`);
  const modelId = model.json.id as string;
  const deploymentId = await runDeployment(gateway, adminKey, modelId, endpointUrl);
  return { modelId, deploymentId };
}

/** Creates a deployment of a registered model and moves it to running. */
export async function runDeployment(
  gateway: string,
  adminKey: string,
  modelId: string,
  endpointUrl: string,
): Promise<string> {
  const dep = await call(gateway, "POST", "/api/v1/deployments", adminKey, { model_id: modelId });
  if (dep.status !== 201) throw new Error(`deploy failed: ${JSON.stringify(dep.json)}`);
  const id = dep.json.id as string;
  for (const patch of [
    { status: "provisioning" },
    { status: "running", endpoint_url: endpointUrl },
  ]) {
    const res = await call(gateway, "PATCH", `/api/v1/deployments/${id}`, adminKey, patch);
    if (res.status !== 200) throw new Error(`transition failed: ${JSON.stringify(res.json)}`);
  }
  return id;
}

/** Creates a customer of a tier and a member key for it. */
export async function customerKey(
  gateway: string,
  adminKey: string,
  tier: string,
): Promise<string> {
  const customer = await call(gateway, "POST", "/api/v1/customers", adminKey, {
    name: `c-${tier}`,
    tier,
  });
  const key = await call(gateway, "POST", "/api/v1/keys", adminKey, {
    customer_id: customer.json.id,
    name: "k",
  });
  return key.json.key as string;
}

export interface ModelBehindGateway {
  gateway: RunningApp;
  /** The scripted fake OpenAI-compatible upstream (a test double) the model is deployed on. */
  upstream: FakeUpstream;
  /** A member key of a new customer of `tier`. */
  key: string;
  close(): Promise<void>;
}

/** A gateway on embedded defaults with one model deployed on a fresh fake upstream, and a key. */
export async function modelBehindGateway(model: string, tier: string): Promise<ModelBehindGateway> {
  const upstream = await startFakeUpstream();
  const gateway = await startTestApp();
  await deployModel(gateway.url, gateway.adminKey, { name: model }, upstream.url);
  const key = await customerKey(gateway.url, gateway.adminKey, tier);
  return {
    gateway,
    upstream,
    key,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
