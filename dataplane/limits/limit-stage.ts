import { GatewayError } from "../core/errors.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { CustomerBudget } from "../store/budget-repository.js";
import { batchLimitKey, batchShareOf, customerLimitKey } from "./limit-keys.js";
import {
  rateLimitsFor,
  type Admission,
  type RateLimiter,
  type RateLimits,
  type Reservation,
} from "./rate-limits.js";
import { estimateTokens } from "./token-estimate.js";
import { CallState } from "../core/call-state.js";

export interface LimitStageDeps {
  limiter: RateLimiter;
  /** Each customer's custom limits (a BudgetSettingsCache in the app). */
  settings: { get(customerId: string): Promise<CustomerBudget> };
  defaultMaxTokens: number;
  /** Share (0-1] of the customer's limits that batch lines may use; default 0.5. */
  batchShare?: number;
}

type Refusal = Exclude<Admission, { allowed: true }>;

const LABEL = { requests: "requests per minute", tokens: "tokens per minute" } as const;

/** The 429 or 503 for a refused admission, with the admission's headers. */
export function refusalError(
  admission: Refusal,
  limits: RateLimits,
  reserved: number,
): GatewayError {
  const headers: Record<string, string> = { ...admission.headers };
  if (admission.reason === "unavailable") {
    return new GatewayError(
      "service_unavailable",
      "rate limiting is unavailable (shared store unreachable); retry later",
      { headers },
    );
  }
  const value = admission.limit === "requests" ? limits.requestsPerMinute : limits.tokensPerMinute;
  const wait = admission.retryAfterSeconds;
  const message = admission.tooLarge
    ? `request too large for the limit: ${LABEL.tokens} (${value}); it reserves ${reserved} ` +
      `tokens (prompt + max_tokens), so waiting will not help: lower max_tokens or shorten the prompt`
    : `rate limit exceeded: ${LABEL[admission.limit]} (${value}); retry after ${wait} second${
        wait === 1 ? "" : "s"
      }`;
  return new GatewayError("rate_limit_exceeded", message, { headers });
}

/**
 * The pipeline's limit stage: admits each inference call against its customer's per-minute
 * limits (every key of a customer shares them), reserving the estimated tokens; after the call,
 * settles the reservation to the real usage (0 when the call never reached a model).
 */
export function limitStage(deps: LimitStageDeps): PipelineStage {
  const reservations = new CallState<Reservation>("reservations");
  const batchReservations = new CallState<Reservation>("batchReservations");
  return {
    name: "limit",
    async beforeForward(call) {
      const customer = call.caller.customer;
      const settings = await deps.settings.get(customer.id);
      const custom: Partial<RateLimits> = {};
      if (settings.requestsPerMinute !== null)
        custom.requestsPerMinute = settings.requestsPerMinute;
      if (settings.tokensPerMinute !== null) custom.tokensPerMinute = settings.tokensPerMinute;
      const tierLimits = rateLimitsFor(customer.tier, custom);
      // A realtime response counts tokens only: its session already counted as the request.
      const limits =
        call.realtime?.kind === "response"
          ? { ...tierLimits, requestsPerMinute: null }
          : tierLimits;
      // No token limit: nothing to reserve against, so the prompt is not tokenized on this path.
      const reserve =
        limits.tokensPerMinute === null ? 0 : estimateTokens(call, deps.defaultMaxTokens).total;
      if (call.batch) {
        // Batch lines first pass their own smaller bucket, then the customer's as usual.
        const share = batchShareOf(limits, deps.batchShare ?? 0.5);
        const own = await deps.limiter.admit(batchLimitKey(customer.id), share, reserve);
        if (!own.allowed) throw refusalError(own, share, reserve);
        batchReservations.set(call, own.reservation);
      }
      const admission = await deps.limiter.admit(customerLimitKey(customer.id), limits, reserve);
      if (!admission.allowed) throw refusalError(admission, limits, reserve);
      reservations.set(call, admission.reservation);
      call.reservedTokens = reserve;
      Object.assign(call.responseHeaders, admission.headers);
    },
    async afterCall(call) {
      const batchReservation = batchReservations.get(call);
      if (batchReservation) {
        batchReservations.delete(call);
        void deps.limiter.settle(batchReservation, call.usage?.totalTokens ?? 0);
      }
      const reservation = reservations.get(call);
      if (!reservation) return;
      reservations.delete(call);
      // Not awaited: the settle's round trip stays off the response path (one round trip per
      // call on the hot path). It never throws, and later admits on this replica queue behind it.
      void deps.limiter.settle(reservation, call.usage?.totalTokens ?? 0);
    },
  };
}
