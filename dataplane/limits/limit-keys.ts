import type { RateLimits } from "./rate-limits.js";

/**
 * Inference limits apply per caller, and the caller is the customer that owns the API key: every
 * key of one customer shares one limit, so minting keys does not multiply it.
 */
export function customerLimitKey(customerId: string): string {
  return `customer:${customerId}`;
}

/**
 * Batch lines also pass a bucket of their own holding a share of the customer's limits: batch
 * traffic can never take more than that share, so interactive calls always keep the rest.
 */
export function batchLimitKey(customerId: string): string {
  return `batch:${customerId}`;
}

/** The share of a customer's per-minute limits that its batch lines may use. */
export function batchShareOf(limits: RateLimits, share: number): RateLimits {
  const scale = (v: number | null) => (v === null ? null : Math.max(1, Math.floor(v * share)));
  return {
    requestsPerMinute: scale(limits.requestsPerMinute),
    tokensPerMinute: scale(limits.tokensPerMinute),
  };
}

/** The management API (/api/v1) is limited per API key, separately from inference. */
export function managementLimitKey(apiKeyId: string): string {
  return `management:${apiKeyId}`;
}

/** Generous enough for dashboards and scripts, low enough that a key cannot flood the store. */
export const MANAGEMENT_REQUESTS_PER_MINUTE = 600;

export function managementLimits(requestsPerMinute = MANAGEMENT_REQUESTS_PER_MINUTE): RateLimits {
  return { requestsPerMinute, tokensPerMinute: null };
}
