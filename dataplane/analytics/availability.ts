import type { CallOutcome } from "../core/inference-call.js";

/**
 * What a call counts as for availability. A failure is the gateway or the backend failing a call
 * it should have served: any 5xx answer, an upstream error, a stream that broke. A refusal is the
 * gateway deciding correctly not to serve (4xx: bad input, auth, rate limits, budgets, guardrail
 * blocks): it costs no availability. A call the client abandoned counts as neither.
 */
export type AvailabilityClass = "success" | "failure" | "refusal" | "aborted";

export function classifyCall(outcome: CallOutcome | undefined, status: number | undefined) {
  if (outcome === "client_aborted") return "aborted" satisfies AvailabilityClass;
  if (outcome === "upstream_error" || outcome === "stream_failed") return "failure";
  if (status !== undefined && status >= 500) return "failure";
  if (outcome === "completed") return "success";
  return "refusal";
}

/** Availability in percent: share of counted calls (requests less refusals) that did not fail. */
export function availabilityPercent(
  requests: number,
  failures: number,
  refusals: number,
): number | null {
  const counted = requests - refusals;
  if (counted <= 0) return null;
  return round4((100 * (counted - failures)) / counted);
}

/** The standard SLA tiers the error budget is reported for, in percent. */
export const SLA_TIERS = ["99.0", "99.5", "99.9", "99.95"] as const;

export interface ErrorBudgetTier {
  tier: string;
  target_percent: number;
  allowed_failures: number;
  failures: number;
  budget_consumed_percent: number;
  budget_remaining_percent: number;
  met: boolean;
}

/**
 * The error budget of one tier over a window: allowed failures = counted calls x (1 - target).
 * Consumed = failures / allowed (over 100 when the budget is blown); remaining = 100 - consumed,
 * floored at 0. With no counted calls nothing is consumed.
 */
export function errorBudget(counted: number, failures: number, tier: string): ErrorBudgetTier {
  const target = Number(tier);
  const allowed = (counted * (100 - target)) / 100;
  const consumed = failures === 0 ? 0 : allowed === 0 ? Infinity : (100 * failures) / allowed;
  const consumedPercent = Number.isFinite(consumed) ? round4(consumed) : 100;
  return {
    tier,
    target_percent: target,
    allowed_failures: round4(allowed),
    failures,
    budget_consumed_percent: consumedPercent,
    budget_remaining_percent: round4(Math.max(0, 100 - consumedPercent)),
    met: failures <= allowed,
  };
}

function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
