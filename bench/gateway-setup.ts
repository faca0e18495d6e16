/**
 * Puts the benchmark models on the gateway through its native API: register each model, create a
 * deployment, move it pending -> provisioning -> running with the upstream as endpoint_url, then
 * wait until GET /v1/models lists them. Returns a member key (not the admin key) for inference.
 */

interface Reply {
  status: number;
  json: Record<string, unknown>;
}

async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = {};
  }
  return { status: res.status, json };
}

function expect(reply: Reply, status: number, what: string): Record<string, unknown> {
  if (reply.status !== status) {
    const error = reply.json.error as { code?: string } | undefined;
    throw new Error(`${what}: HTTP ${reply.status}${error?.code ? ` (${error.code})` : ""}`);
  }
  return reply.json;
}

export async function registerBenchModels(
  gatewayUrl: string,
  adminKey: string,
  upstreamBase: string,
  models: readonly string[],
): Promise<{ inferenceKey: string }> {
  for (const name of models) {
    const model = expect(
      await call(gatewayUrl, adminKey, "POST", "/api/v1/models", {
        name,
        version: "1",
        architecture: "fake",
        modality: "text",
        required_tier: "free",
        pricing: { input_per_1k: 0.001, output_per_1k: 0.002 },
        context_window: 8192,
      }),
      201,
      `register model ${name}`,
    );
    const deployment = expect(
      await call(gatewayUrl, adminKey, "POST", "/api/v1/deployments", { model_id: model.id }),
      201,
      `create deployment of ${name}`,
    );
    const path = `/api/v1/deployments/${String(deployment.id)}`;
    expect(
      await call(gatewayUrl, adminKey, "PATCH", path, { status: "provisioning" }),
      200,
      "provision",
    );
    expect(
      await call(gatewayUrl, adminKey, "PATCH", path, {
        status: "running",
        endpoint_url: upstreamBase,
      }),
      200,
      "mark running",
    );
  }
  const created = expect(
    await call(gatewayUrl, adminKey, "POST", "/api/v1/keys", { name: "bench", role: "member" }),
    201,
    "create a member key",
  );
  if (typeof created.key !== "string") throw new Error("create a member key: no key in the reply");
  const inferenceKey = created.key;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listed = await call(gatewayUrl, inferenceKey, "GET", "/v1/models");
    const ids = ((listed.json.data as { id: string }[] | undefined) ?? []).map((m) => m.id);
    if (models.every((m) => ids.includes(m))) return { inferenceKey };
    if (Date.now() > deadline)
      throw new Error(`gateway did not list ${models.join(", ")} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
