import type { Tier } from "../core/identity.js";

/** Per-minute limits of one caller; null means unlimited in that dimension. */
export interface RateLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
}

/** Defaults by tier (spec section 8). Enterprise is unlimited unless the customer has custom limits. */
export const TIER_RATE_LIMITS: Readonly<Record<Tier, RateLimits>> = {
  free: { requestsPerMinute: 20, tokensPerMinute: 40_000 },
  pro: { requestsPerMinute: 300, tokensPerMinute: 500_000 },
  business: { requestsPerMinute: 1_000, tokensPerMinute: 5_000_000 },
  enterprise: { requestsPerMinute: null, tokensPerMinute: null },
};

/** The limits of a customer: its tier's defaults, overridden per dimension by custom limits. */
export function rateLimitsFor(tier: Tier, custom: Partial<RateLimits> = {}): RateLimits {
  const base = TIER_RATE_LIMITS[tier];
  return {
    requestsPerMinute:
      custom.requestsPerMinute === undefined ? base.requestsPerMinute : custom.requestsPerMinute,
    tokensPerMinute:
      custom.tokensPerMinute === undefined ? base.tokensPerMinute : custom.tokensPerMinute,
  };
}

/** Lower-case header names, exactly as the HTTP layer sends them. */
export type RateLimitHeaders = Partial<
  Record<
    | "x-ratelimit-limit-requests"
    | "x-ratelimit-remaining-requests"
    | "x-ratelimit-reset-requests"
    | "x-ratelimit-limit-tokens"
    | "x-ratelimit-remaining-tokens"
    | "x-ratelimit-reset-tokens"
    | "retry-after",
    string
  >
>;

/** What `settle` needs to correct a token charge; opaque to callers. */
export interface Reservation {
  readonly key: string;
  readonly reservedTokens: number;
  readonly tokensPerMinute: number | null;
  /** Where the charge was made: the shared store, the local fallback, or nowhere (fail open). */
  readonly store: "primary" | "local" | "none";
}

export type LimitName = "requests" | "tokens";

export type Admission =
  | {
      allowed: true;
      reservation: Reservation;
      headers: RateLimitHeaders;
      /** True when decided by the local fallback or fail-open mode instead of the shared store. */
      degraded: boolean;
    }
  | {
      allowed: false;
      reason: "rate_limited";
      /** The limit that decides when the request can be retried. */
      limit: LimitName;
      retryAfterSeconds: number;
      /** The reservation alone exceeds the per-minute token limit: waiting will not help. */
      tooLarge: boolean;
      headers: RateLimitHeaders;
      degraded: boolean;
    }
  | {
      /** The shared store is unreachable and the fail mode is "closed": answer 503. */
      allowed: false;
      reason: "unavailable";
      headers: RateLimitHeaders;
      degraded: true;
    };

export interface RateLimiter {
  /** Admit one request of `reserveTokens` estimated tokens for `key`: one store round trip. */
  admit(key: string, limits: RateLimits, reserveTokens: number): Promise<Admission>;
  /** Correct the token charge of an admitted request to its real usage (refund or extra charge). */
  settle(reservation: Reservation, actualTokens: number): Promise<void>;
}
