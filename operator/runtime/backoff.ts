export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** 0..1: the delay is drawn uniformly from [d*(1-jitter), d]. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 5 * 60_000, jitter: 0.5 };

/** Delay before retry number `attempt` (1-based): base * 2^(attempt-1), capped, with jitter. */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(
    policy.maxMs,
    policy.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)),
  );
  return Math.round(exponential * (1 - policy.jitter * random()));
}
