import { checksCostOf, costOf, totalCostOf } from "../audit/call-record.js";
import { GatewayError } from "../core/errors.js";
import { succeeded, type InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { Logger } from "../observability/logger.js";
import type { Pricing } from "../registry/inventory-types.js";
import type { BudgetLedger } from "./budget-ledger.js";
import type { BudgetSettingsCache } from "./budget-settings-cache.js";
import type { CarriedSpend } from "./carried-spend.js";
import { estimateTokens } from "./token-estimate.js";
import type { UsageMeter } from "./usage-meter.js";
import { CallState } from "../core/call-state.js";

export interface MeterStageDeps {
  ledger: BudgetLedger;
  settings: BudgetSettingsCache;
  carried: CarriedSpend;
  meter: UsageMeter;
  defaultMaxTokens: number;
  /** The rate limiter's fail mode also decides what a hard budget does while Redis is down. */
  failClosed: boolean;
  logger: Logger;
  now: () => number;
}

/** A call refused before its budget reservation still pays for the model checks it caused. */
async function chargeChecks(deps: MeterStageDeps, call: InferenceCall): Promise<void> {
  const cost = checksCostOf(call);
  if (cost <= 0) return;
  const budget = await deps.settings.get(call.caller.customer.id);
  if (budget.limitUsd === null) return;
  try {
    const r = await deps.ledger.reserve(call.caller.customer.id, budget.period, cost, null);
    if (r.reservationId) await deps.ledger.settle(r.reservationId, cost);
  } catch {
    deps.logger.warn({ customer_id: call.caller.customer.id }, "model check cost not budgeted");
  }
}

function usd(n: number): string {
  return `$${n.toFixed(n >= 1 ? 2 : 6).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
}

export function estimatedCost(pricing: Pricing, promptTokens: number, completionTokens: number) {
  return (
    (promptTokens / 1000) * pricing.inputPer1k + (completionTokens / 1000) * pricing.outputPer1k
  );
}

/**
 * The meter stage: before forwarding (after routing, so the model's prices are known) reserves the
 * call's estimated cost against the customer's budget, refusing with 402 budget_exceeded when a
 * hard budget cannot cover it; after the call, settles the reservation to the real cost, sets
 * `call.costUsd` and meters the call (aggregated, written to usage_records in batches).
 */
export function meterStage(deps: MeterStageDeps): PipelineStage {
  const reservations = new CallState<string>("reservations");
  return {
    name: "meter",
    async beforeForward(call) {
      // A cache hit spends nothing upstream: nothing to reserve (served even on a spent budget).
      if (!call.route || call.cache?.result === "hit") return;
      const customerId = call.caller.customer.id;
      const budget = await deps.settings.get(customerId);
      if (budget.limitUsd === null) return;
      const t = estimateTokens(call, deps.defaultMaxTokens);
      const estimate = estimatedCost(call.route.model.pricing, t.promptTokens, t.completionTokens);
      const hard = budget.mode === "hard";
      try {
        const carried = hard ? await deps.carried.get(customerId, budget.period) : 0;
        const headroom = hard ? Math.max(0, budget.limitUsd - carried) : null;
        const r = await deps.ledger.reserve(customerId, budget.period, estimate, headroom);
        if (!r.allowed) {
          const left = Math.max(0, budget.limitUsd - carried - r.spentUsd - r.reservedUsd);
          throw new GatewayError(
            "budget_exceeded",
            `budget exceeded: the ${budget.period} hard budget of ${usd(budget.limitUsd)} has ` +
              `${usd(left)} left and this call's estimated cost is ${usd(estimate)}`,
          );
        }
        if (r.reservationId) reservations.set(call, r.reservationId);
      } catch (err) {
        if (err instanceof GatewayError && err.code === "budget_exceeded") throw err;
        if (hard && deps.failClosed) {
          throw new GatewayError("service_unavailable", "budget enforcement is unavailable", {
            cause: err,
          });
        }
        deps.logger.warn(
          { customer_id: customerId },
          "budget ledger unreachable; call not budgeted",
        );
      }
    },
    async afterCall(call) {
      const cost = costOf(call);
      // The call's cost includes its guardrail model checks (each metered under its own model).
      const total = totalCostOf(call);
      if (total !== undefined) call.costUsd = total;
      const reservationId = reservations.get(call);
      if (reservationId) {
        reservations.delete(call);
        await deps.ledger.settle(reservationId, total ?? 0);
      } else if (call.checkCalls.length > 0) {
        await chargeChecks(deps, call);
      }
      for (const check of call.checkCalls) {
        deps.meter.record({
          at: call.startedAt,
          customerId: call.caller.customer.id,
          keyId: call.caller.key.id,
          model: check.model,
          failed: false,
          rateLimited: false,
          promptTokens: check.promptTokens,
          completionTokens: check.completionTokens,
          costUsd: check.costUsd,
          latencyMs: 0,
        });
      }
      deps.meter.record({
        at: call.startedAt,
        customerId: call.caller.customer.id,
        keyId: call.caller.key.id,
        model: call.route?.model.name ?? call.requestedModel.slice(0, 256),
        failed: !succeeded(call),
        rateLimited: call.error?.type === "rate_limit_error",
        promptTokens: call.usage?.promptTokens ?? 0,
        completionTokens: call.usage?.completionTokens ?? 0,
        costUsd: cost ?? 0,
        latencyMs: deps.now() - call.startedAt,
      });
    },
  };
}
