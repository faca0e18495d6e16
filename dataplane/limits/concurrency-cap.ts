import { GatewayError } from "../core/errors.js";
import type { Tier } from "../core/identity.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import { CallState } from "../core/call-state.js";

export type ConcurrencyCaps = Record<Tier, number>;

/**
 * A per-customer cap on calls in flight to backends (streams until their last event), by tier, so
 * one tenant cannot take a shared backend's connection pool.
 */
export interface ConcurrencyCap {
  /** Takes a slot and returns its lease, or refuses with 429 concurrency_limit_exceeded. */
  acquire(customerId: string, tier: Tier): Promise<string>;
  release(customerId: string, lease: string): Promise<void>;
  close(): Promise<void>;
}

export function capExceeded(tier: Tier, cap: number): GatewayError {
  return new GatewayError(
    "concurrency_limit_exceeded",
    `too many calls in flight for this customer: the ${tier} tier allows ${cap} at once`,
    { headers: { "retry-after": "1" } },
  );
}

/** Counted in this process: with N replicas (and no Redis) a customer may have N x cap. */
export class MemoryConcurrencyCap implements ConcurrencyCap {
  private readonly inFlight = new Map<string, Set<string>>();
  /** Leases only need to be unique in this process: a counter, not a random UUID per call. */
  private leases = 0;

  constructor(private readonly caps: ConcurrencyCaps) {}

  async acquire(customerId: string, tier: Tier): Promise<string> {
    const cap = this.caps[tier];
    const leases = this.inFlight.get(customerId) ?? new Set<string>();
    if (leases.size >= cap) throw capExceeded(tier, cap);
    const lease = String(++this.leases);
    leases.add(lease);
    this.inFlight.set(customerId, leases);
    return lease;
  }

  async release(customerId: string, lease: string): Promise<void> {
    const leases = this.inFlight.get(customerId);
    if (!leases) return;
    leases.delete(lease);
    if (leases.size === 0) this.inFlight.delete(customerId);
  }

  async close(): Promise<void> {}
}

/**
 * The limit stage followed by the concurrency cap: a slot is taken once the rate limits admitted
 * the call (before guardrail model checks, which run inside it) and given back when the call ends,
 * whatever its outcome.
 */
export function withConcurrencyCap(limit: PipelineStage, cap: ConcurrencyCap): PipelineStage {
  const leases = new CallState<string>("leases");
  // A call whose admission outlived its deadline (Envoy) may end before it took its slot.
  const ended = new CallState<true>("ended");
  const customer = (call: InferenceCall) => call.caller.customer.id;
  return {
    ...limit,
    name: limit.name,
    async beforeForward(call) {
      await limit.beforeForward?.(call);
      // Realtime sessions have their own per-customer cap (REALTIME_MAX_SESSIONS); the cache's
      // embedding call runs inside a chat call that holds a slot.
      if (call.endpoint === "realtime" || call.cacheEmbeddingFor !== undefined) return;
      const lease = await cap.acquire(customer(call), call.caller.customer.tier);
      if (ended.has(call)) await cap.release(customer(call), lease);
      else leases.set(call, lease);
    },
    async afterCall(call) {
      ended.set(call, true);
      const lease = leases.get(call);
      if (lease !== undefined) {
        leases.delete(call);
        await cap.release(customer(call), lease);
      }
      await limit.afterCall?.(call);
    },
  };
}
