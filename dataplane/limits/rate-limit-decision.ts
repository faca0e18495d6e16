import { GatewayError } from "../core/errors.js";
import { MAX_LIMIT, msUntilEmpty, msUntilFits, remainingUnits } from "./gcra.js";
import type {
  Admission,
  LimitName,
  RateLimitHeaders,
  RateLimits,
  Reservation,
} from "./rate-limits.js";

/**
 * Levels of both dimensions as the store reports them: after the charge when admitted, drained but
 * uncharged when refused. Unlimited dimensions are ignored.
 */
export interface Levels {
  requests: number;
  tokens: number;
}

/** "12s", "0.5s", "0s": seconds with up to millisecond precision and an `s` suffix. */
export function formatSeconds(ms: number): string {
  const fixed = (Math.max(0, ms) / 1000).toFixed(3).replace(/\.?0+$/, "");
  return `${fixed}s`;
}

function dimensionHeaders(
  name: LimitName,
  limit: number | null,
  level: number,
  headers: RateLimitHeaders,
): void {
  if (limit === null) return;
  headers[`x-ratelimit-limit-${name}`] = String(limit);
  headers[`x-ratelimit-remaining-${name}`] = String(remainingUnits(level, limit));
  headers[`x-ratelimit-reset-${name}`] = formatSeconds(msUntilEmpty(level, limit));
}

/** The headers every response carries; dimensions without a limit send no headers. */
export function rateLimitHeaders(limits: RateLimits, levels: Levels): RateLimitHeaders {
  const headers: RateLimitHeaders = {};
  dimensionHeaders("requests", limits.requestsPerMinute, levels.requests, headers);
  dimensionHeaders("tokens", limits.tokensPerMinute, levels.tokens, headers);
  return headers;
}

/** Turns a store's verdict and levels into the Admission the pipeline sees. */
export function toAdmission(
  allowed: boolean,
  levels: Levels,
  limits: RateLimits,
  reserveTokens: number,
  reservation: Reservation,
  degraded: boolean,
): Admission {
  const headers = rateLimitHeaders(limits, levels);
  if (allowed) return { allowed: true, reservation, headers, degraded };
  const rpm = limits.requestsPerMinute;
  const tpm = limits.tokensPerMinute;
  const requestWait = rpm === null ? 0 : msUntilFits(levels.requests, rpm, 1);
  const tooLarge = tpm !== null && reserveTokens > tpm;
  const tokenWait =
    tpm === null
      ? 0
      : tooLarge
        ? msUntilEmpty(levels.tokens, tpm)
        : msUntilFits(levels.tokens, tpm, reserveTokens);
  const limit: LimitName = tooLarge || tokenWait > requestWait ? "tokens" : "requests";
  const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(requestWait, tokenWait) / 1000));
  headers["retry-after"] = String(retryAfterSeconds);
  return {
    allowed: false,
    reason: "rate_limited",
    limit,
    retryAfterSeconds,
    tooLarge,
    headers,
    degraded,
  };
}

/** Rejects inputs that would break the integer arithmetic or make no sense. */
export function checkAdmitInput(limits: RateLimits, reserveTokens: number): void {
  for (const value of [limits.requestsPerMinute, limits.tokensPerMinute]) {
    if (value !== null && !(Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT)) {
      throw new GatewayError("internal_error", `rate limit must be an integer in 1..${MAX_LIMIT}`);
    }
  }
  if (!(Number.isInteger(reserveTokens) && reserveTokens >= 0)) {
    throw new RangeError(`reserveTokens must be a non-negative integer, got ${reserveTokens}`);
  }
}
