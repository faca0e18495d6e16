import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { RoutingTableHolder } from "./routing-loader.js";
import { resolveCallRoute, settleServedModel } from "./routes/resolve-call-route.js";
import type { TargetHealth } from "./target-health.js";

/**
 * Resolves the requested model for the caller, through the customer's smart routes first: 404 if
 * unknown, 403 if the model used is above the caller's tier. After forwarding, a call that failed
 * over to another model of its route is accounted to that model.
 */
export function routeStage(routing: RoutingTableHolder, health: TargetHealth): PipelineStage {
  return {
    name: "route",
    async beforeForward(call: InferenceCall) {
      call.route = resolveCallRoute(routing.current, health, {
        customerId: call.caller.customer.id,
        tier: call.caller.customer.tier,
        requestedModel: call.requestedModel,
        requestHeaders: call.requestHeaders,
      });
    },
    async transformResponse(call: InferenceCall, body: Record<string, unknown>) {
      settleServedModel(call);
      return body;
    },
    openStreamFilter(call: InferenceCall) {
      settleServedModel(call);
      return undefined;
    },
    async afterCall(call: InferenceCall) {
      settleServedModel(call);
    },
  };
}
