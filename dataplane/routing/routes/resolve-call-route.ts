import { GatewayError } from "../../core/errors.js";
import { tierRank, type Tier } from "../../core/identity.js";
import type { RoutingTable } from "../routing-table.js";
import type { InferenceCall } from "../../core/inference-call.js";
import type { RouteDecision, RoutableModel, Target } from "../routing-types.js";
import type { TargetHealth } from "../target-health.js";
import { matchRoute } from "./match-route.js";
import { pickTarget } from "./pick-target.js";

export interface CallToRoute {
  customerId: string;
  tier: Tier;
  /** The model name or alias as the caller wrote it. */
  requestedModel: string;
  requestHeaders: Readonly<Record<string, string>> | undefined;
}

/**
 * Where one call goes. The customer's smart routes come first: a matching enabled route picks the
 * target model by its strategy. Otherwise the requested name resolves as usual. Either way the
 * caller's tier must reach the model actually used (403), and an unknown or undeployed model is
 * a 404. Fallback models the tier does not reach are dropped.
 */
export function resolveCallRoute(
  table: RoutingTable,
  health: TargetHealth,
  call: CallToRoute,
  random: () => number = Math.random,
): RouteDecision {
  const route = matchRoute(
    table.routesOf(call.customerId),
    call.requestedModel,
    call.requestHeaders,
  );
  if (!route) {
    const model = table.resolve(call.requestedModel, call.customerId);
    if (!model || model.targets.length === 0) {
      throw new GatewayError(
        "model_not_found",
        `model '${truncate(call.requestedModel)}' does not exist or has no running deployment`,
      );
    }
    assertTier(model, call.tier);
    return table.decide(model, health);
  }
  const pick = pickTarget(route, (name) => table.resolve(name, call.customerId), random);
  if (!pick) {
    throw new GatewayError(
      "model_not_found",
      `route '${route.id}' (${route.strategy}) for model '${truncate(call.requestedModel)}' has no target with a running deployment`,
    );
  }
  assertTier(pick.chosen, call.tier);
  const servedBy = new Map<Target, { model: RoutableModel; arm: string }>();
  const targets: Target[] = [];
  const options = [
    { model: pick.chosen, arm: pick.arm },
    ...pick.fallbacks.filter((f) => tierRank(call.tier) >= tierRank(f.model.requiredTier)),
  ];
  for (const option of options) {
    for (const target of table.decide(option.model, health).targets) {
      targets.push(target);
      servedBy.set(target, option);
    }
  }
  return {
    model: pick.chosen,
    targets,
    routeId: route.id,
    strategy: route.strategy,
    arm: pick.arm,
    ...(options.length > 1 ? { servedBy } : {}),
  };
}

/**
 * Once the call has been sent: when it failed over to a fallback model's target, the decision
 * names that model and arm from then on (response guards, metering and audit see what served it).
 */
export function settleServedModel(call: InferenceCall): void {
  const served = call.target && call.route?.servedBy?.get(call.target);
  if (!call.route || !served || served.model === call.route.model) return;
  call.route = { ...call.route, model: served.model, arm: served.arm };
}

function assertTier(model: RoutableModel, tier: Tier): void {
  if (tierRank(tier) < tierRank(model.requiredTier)) {
    throw new GatewayError(
      "tier_restricted",
      `model '${model.name}' requires the ${model.requiredTier} tier; this key's customer is on ${tier}`,
    );
  }
}

function truncate(s: string): string {
  return s.length > 100 ? `${s.slice(0, 100)}...` : s;
}
