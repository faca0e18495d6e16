import test from "ava";
import type { DeploymentSpec, ModelSpec } from "../crd/specs.js";
import { deploymentSpec } from "../crd/specs.js";
import { buildAppsDeployment, endpointUrl, workloadName } from "./deployment-workload.js";

const model: ModelSpec = {
  deletionPolicy: "Retain",
  name: "m",
  version: "1",
  modality: "text",
  engine: "vllm",
  requiredTier: "free",
};

function container(
  engine: ModelSpec["engine"],
  spec: Partial<DeploymentSpec> = {},
  image?: string,
): Record<string, unknown> {
  const input = {
    crName: "d",
    namespace: "ns",
    uid: "u",
    spec: deploymentSpec.parse({ modelRef: "m", ...spec }),
    model: { ...model, engine, ...(image ? { image } : {}) },
  };
  const built = buildAppsDeployment(input).spec as {
    template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
  };
  return { ...built.template.spec, ...built.template.spec.containers[0] };
}

test("each engine gets its image, arguments and probes; port defaults to 8000", (t) => {
  t.like(container("tgi"), {
    args: ["--model-id", "m", "--port", "8000"],
    readinessProbe: { httpGet: { path: "/health" } },
  });
  t.regex(String(container("tgi").image), /^ghcr\.io\/huggingface\/text-generation-inference:/);
  t.like(container("ollama"), {
    env: [{ name: "OLLAMA_HOST", value: "0.0.0.0:8000" }],
    readinessProbe: { httpGet: { path: "/" } },
  });
  t.regex(String(container("ollama").image), /^ollama\/ollama:/);
  t.like(container("generic", { port: 9000 }, "registry.example/engine:1"), {
    image: "registry.example/engine:1",
    readinessProbe: { tcpSocket: { port: 9000 } },
    ports: [{ containerPort: 9000 }],
  });
  t.is(container("vllm", {}, "my/vllm:patched").image, "my/vllm:patched");
});

test("engineArgs as a map render as --key value flags", (t) => {
  const args = container("vllm", {
    engineArgs: { "max-model-len": 4096, "enforce-eager": true, "trust-remote-code": false },
  }).args;
  t.deepEqual((args as string[]).slice(-3), ["--max-model-len", "4096", "--enforce-eager"]);
});

test("a GPU type without a slash selects nodes by product; with a slash it names the resource", (t) => {
  const a100 = container("vllm", { gpu: { count: 2, type: "NVIDIA-A100-SXM4-80GB" } });
  t.deepEqual(a100.nodeSelector, { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" });
  t.deepEqual(a100.resources, {
    requests: { "nvidia.com/gpu": "2" },
    limits: { "nvidia.com/gpu": "2" },
  });
  const amd = container("vllm", { gpu: { count: 1, type: "amd.com/gpu" } });
  t.deepEqual(amd.resources, { requests: { "amd.com/gpu": "1" }, limits: { "amd.com/gpu": "1" } });
  t.is(amd.nodeSelector, undefined);
});

test("workload names fit the 63-character DNS label limit and stay distinct", (t) => {
  const long = "a".repeat(70);
  t.true(workloadName(long).length <= 63);
  t.not(workloadName(long), workloadName(`${long}b`));
  t.is(workloadName("llama"), "llama-engine");
});

test("the endpoint_url follows the Service name, namespace and port, or a configured template", (t) => {
  t.is(endpointUrl("llama", "team-a", 8000), "http://llama-engine.team-a.svc:8000/v1");
  t.is(
    endpointUrl(
      "llama",
      "team-a",
      9000,
      "https://{service}.{namespace}.svc.cluster.local:{port}/v1",
    ),
    "https://llama-engine.team-a.svc.cluster.local:9000/v1",
  );
});
