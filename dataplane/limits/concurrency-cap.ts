import { GatewayError } from "../core/errors.js";
import type { Tier } from "../core/identity.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";

export type ConcurrencyCaps = Record<Tier, number>;

/**
 * A per-customer cap on calls in flight to backends (streams until their last event), by tier, so
 * one tenant cannot take a shared backend's connection pool. Counted per replica: with N replicas a
 * customer may have up to N x cap calls in flight (docs/limits.md).
 */
export class ConcurrencyCap {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly caps: ConcurrencyCaps) {}

  /** Takes a slot, or refuses with 429 concurrency_limit_exceeded. */
  acquire(customerId: string, tier: Tier): void {
    const cap = this.caps[tier];
    const now = this.inFlight.get(customerId) ?? 0;
    if (now >= cap) {
      throw new GatewayError(
        "concurrency_limit_exceeded",
        `too many calls in flight for this customer: the ${tier} tier allows ${cap} at once`,
        { headers: { "retry-after": "1" } },
      );
    }
    this.inFlight.set(customerId, now + 1);
  }

  release(customerId: string): void {
    const now = this.inFlight.get(customerId) ?? 0;
    if (now <= 1) this.inFlight.delete(customerId);
    else this.inFlight.set(customerId, now - 1);
  }

  current(customerId: string): number {
    return this.inFlight.get(customerId) ?? 0;
  }
}

/**
 * The limit stage followed by the concurrency cap: a slot is taken once the rate limits admitted
 * the call (before guardrail model checks, which run inside it) and given back when the call ends,
 * whatever its outcome.
 */
export function withConcurrencyCap(limit: PipelineStage, cap: ConcurrencyCap): PipelineStage {
  const holding = new WeakSet<InferenceCall>();
  // A call whose admission outlived its deadline (Envoy) may end before it took its slot.
  const ended = new WeakSet<InferenceCall>();
  return {
    ...limit,
    name: limit.name,
    async beforeForward(call) {
      await limit.beforeForward?.(call);
      cap.acquire(call.caller.customer.id, call.caller.customer.tier);
      if (ended.has(call)) cap.release(call.caller.customer.id);
      else holding.add(call);
    },
    async afterCall(call) {
      ended.add(call);
      if (holding.delete(call)) cap.release(call.caller.customer.id);
      await limit.afterCall?.(call);
    },
  };
}
