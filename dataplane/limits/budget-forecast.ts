const DAY_MS = 86_400_000;
const LOOKBACK_DAYS = 7;

export interface ForecastInput {
  now: number;
  periodStart: number;
  periodEnd: number;
  /** Spend of the period so far. */
  spentUsd: number;
  limitUsd: number | null;
  /** Spend over the lookback: the last 7 days. */
  recentSpendUsd: number;
  /** When the customer's first metered call was (null: never). */
  firstUse: number | null;
}

export interface Forecast {
  projected_spend_usd: number;
  projected_exhaustion_date: string | null;
  run_rate_usd_per_day: number;
  method: string;
}

/** The lookback window the run rate is measured over: the 7 days before `now`. */
export function lookbackStart(now: number): number {
  return now - LOOKBACK_DAYS * DAY_MS;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * Linear forecast from the recent run rate: spend over the last 7 days divided by the days
 * covered (7, or the time since the first use when that is shorter, at least one hour), projected
 * to the end of the period. Exhaustion: when spend reaches the limit at that rate, if it happens
 * before the period ends (now, if it already has).
 */
export function forecast(i: ForecastInput): Forecast {
  const since = i.firstUse ?? i.now;
  const coveredMs = Math.max(3_600_000, Math.min(LOOKBACK_DAYS * DAY_MS, i.now - since));
  const ratePerDay = i.firstUse === null ? 0 : i.recentSpendUsd / (coveredMs / DAY_MS);
  const remainingDays = Math.max(0, i.periodEnd - i.now) / DAY_MS;
  const projected = i.spentUsd + ratePerDay * remainingDays;
  let exhaustion: string | null = null;
  if (i.limitUsd !== null) {
    if (i.spentUsd >= i.limitUsd) exhaustion = new Date(i.now).toISOString();
    else if (ratePerDay > 0) {
      const at = Math.round(i.now + ((i.limitUsd - i.spentUsd) / ratePerDay) * DAY_MS);
      if (at < i.periodEnd) exhaustion = new Date(at).toISOString();
    }
  }
  const method =
    coveredMs >= LOOKBACK_DAYS * DAY_MS
      ? "linear run rate over the last 7 days"
      : "linear run rate since first use (less than 7 days ago)";
  return {
    projected_spend_usd: round(projected),
    projected_exhaustion_date: exhaustion,
    run_rate_usd_per_day: round(ratePerDay),
    method,
  };
}

/** The alert thresholds (fractions of the limit) the spend has reached. */
export function alertsCrossed(
  spentUsd: number,
  limitUsd: number | null,
  thresholds: readonly number[],
): number[] {
  if (limitUsd === null || limitUsd <= 0) return [];
  return thresholds.filter((t) => spentUsd >= t * limitUsd);
}
