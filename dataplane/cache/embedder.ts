import { GatewayError } from "../core/errors.js";
import type { Tier } from "../core/identity.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import { resolveCallRoute } from "../routing/routes/resolve-call-route.js";
import type { TargetHealth } from "../routing/target-health.js";
import { forwardWithRetries } from "../upstream/forward-with-retries.js";
import type { UpstreamClient } from "../upstream/upstream-client.js";

/** Turns a prompt into a unit vector (so a dot product is the cosine similarity). */
export type Embed = (
  customer: { id: string; tier: Tier },
  model: string,
  text: string,
) => Promise<number[]>;

const EMBED_TIMEOUT_MS = 10_000;
const MAX_EMBED_CHARS = 32_000;

/**
 * Embeddings for the semantic cache, from the embedding model the customer named, resolved and
 * sent through the gateway's own routing (the customer's smart routes, tiers and backends apply).
 */
export function gatewayEmbedder(deps: {
  routing: RoutingTableHolder;
  health: TargetHealth;
  upstream: UpstreamClient;
  retries: number;
}): Embed {
  return async (customer, model, text) => {
    const decision = resolveCallRoute(deps.routing.current, deps.health, {
      customerId: customer.id,
      tier: customer.tier,
      requestedModel: model,
      requestHeaders: undefined,
    });
    const forwarded = await forwardWithRetries(
      deps.upstream,
      deps.health,
      decision,
      (target) => ({
        path: "/embeddings",
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          model: target.upstreamModel,
          input: text.slice(0, MAX_EMBED_CHARS),
        }),
      }),
      { retries: deps.retries, signal: AbortSignal.timeout(EMBED_TIMEOUT_MS) },
    );
    const raw = await forwarded.response.body.text();
    if (forwarded.response.status >= 400) {
      throw new GatewayError(
        "upstream_unavailable",
        `embedding model answered ${forwarded.response.status}`,
      );
    }
    const parsed = JSON.parse(raw) as { data?: { embedding?: unknown }[] };
    const vector = parsed.data?.[0]?.embedding;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((x) => typeof x === "number")
    ) {
      throw new GatewayError("upstream_unavailable", "embedding model returned no vector");
    }
    return unitVector(vector as number[]);
  };
}

export function unitVector(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v.map(() => 0) : v.map((x) => x / norm);
}
