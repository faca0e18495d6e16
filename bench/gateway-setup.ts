/**
 * Puts the benchmark models on the gateway through its native API: register each model, create a
 * deployment, move it pending -> provisioning -> running with the upstream as endpoint_url, then
 * wait until GET /v1/models lists them (as seen with `inferenceKey`).
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
  inferenceKey: string,
): Promise<void> {
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
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listed = await call(gatewayUrl, inferenceKey, "GET", "/v1/models");
    const ids = ((listed.json.data as { id: string }[] | undefined) ?? []).map((m) => m.id);
    if (models.every((m) => ids.includes(m))) return;
    if (Date.now() > deadline)
      throw new Error(`gateway did not list ${models.join(", ")} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Guardrail policy override that turns every detector off, for one key. */
export const GUARDRAILS_OFF = {
  pii: { enabled: false },
  injection: { enabled: false },
  safety: { enabled: false },
};

/**
 * Makes a member key (never the admin key) for inference; with `policyOverride`, sets that key's
 * guardrail policy override through PATCH /api/v1/guardrails/policy?key_id=.
 */
export async function createMemberKey(
  gatewayUrl: string,
  adminKey: string,
  name: string,
  policyOverride?: Record<string, unknown>,
): Promise<string> {
  const created = expect(
    await call(gatewayUrl, adminKey, "POST", "/api/v1/keys", { name, role: "member" }),
    201,
    "create a member key",
  );
  if (typeof created.key !== "string") throw new Error("create a member key: no key in the reply");
  if (policyOverride) {
    const path = `/api/v1/guardrails/policy?key_id=${encodeURIComponent(String(created.id))}`;
    expect(
      await call(gatewayUrl, adminKey, "PATCH", path, policyOverride),
      200,
      "key policy override",
    );
  }
  return created.key;
}
