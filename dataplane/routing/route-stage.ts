import { GatewayError } from "../core/errors.js";
import { tierRank } from "../core/identity.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { RoutingTableHolder } from "./routing-loader.js";
import type { TargetHealth } from "./target-health.js";

/** Resolves the requested model for the caller: 404 if unknown, 403 if above the caller's tier. */
export function routeStage(routing: RoutingTableHolder, health: TargetHealth): PipelineStage {
  return {
    name: "route",
    async beforeForward(call: InferenceCall) {
      const model = routing.current.resolve(call.requestedModel, call.caller.customer.id);
      if (!model || model.targets.length === 0) {
        throw new GatewayError(
          "model_not_found",
          `model '${truncate(call.requestedModel)}' does not exist or has no running deployment`,
        );
      }
      if (tierRank(call.caller.customer.tier) < tierRank(model.requiredTier)) {
        throw new GatewayError(
          "tier_restricted",
          `model '${model.name}' requires the ${model.requiredTier} tier; this key's customer is on ${call.caller.customer.tier}`,
        );
      }
      call.route = routing.current.decide(model, health);
    },
  };
}

function truncate(s: string): string {
  return s.length > 100 ? `${s.slice(0, 100)}...` : s;
}
