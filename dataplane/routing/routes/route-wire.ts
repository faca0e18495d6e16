import type { RouteDecision } from "../routing-types.js";
import type { RouteConfig } from "./route-config.js";

/** RouteConfig as the API returns it. */
export function routeJson(r: RouteConfig) {
  return {
    id: r.id,
    object: "route",
    customer_id: r.customerId,
    name: r.name,
    match: { model: r.match.model, headers: r.match.headers },
    strategy: r.strategy,
    targets: r.targets.map((t) => ({ model: t.model, weight: t.weight })),
    enabled: r.enabled,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** RoutingDecision: what a call with this context would do now (no credentials). */
export function decisionJson(customerId: string, requestedModel: string, d: RouteDecision) {
  return {
    object: "routing_decision",
    customer_id: customerId,
    requested_model: requestedModel,
    route_id: d.routeId ?? null,
    strategy: d.strategy ?? null,
    arm: d.arm ?? null,
    model: d.model.name,
    model_version: d.model.model?.version ?? null,
    required_tier: d.model.requiredTier,
    pricing: {
      input_per_1k: d.model.pricing.inputPer1k,
      output_per_1k: d.model.pricing.outputPer1k,
    },
    targets: d.targets.map((t) => ({ id: t.id, kind: t.kind, upstream_model: t.upstreamModel })),
  };
}
