import type { Clock } from "../core/clock.js";
import type { BudgetRepository, CustomerBudget } from "../store/budget-repository.js";
import type { UsageRepository } from "../store/usage-repository.js";
import { alertsCrossed, forecast, lookbackStart, type Forecast } from "./budget-forecast.js";
import type { BudgetLedger } from "./budget-ledger.js";
import { periodBounds } from "./budget-period.js";
import type { UsageMeter } from "./usage-meter.js";

export interface BudgetStatus {
  object: "budget_status";
  customer_id: string;
  period: CustomerBudget["period"];
  period_start: string;
  period_end: string;
  spend_usd: number;
  reserved_usd: number;
  limit_usd: number | null;
  remaining_usd: number | null;
  mode: CustomerBudget["mode"];
  alert_thresholds: number[];
  alerts_crossed: number[];
  forecast: Forecast;
}

export interface BudgetStatusDeps {
  budgets: BudgetRepository;
  usage: UsageRepository;
  ledger: BudgetLedger;
  meter: UsageMeter;
  clock: Clock;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * Spend of the current period from the durable usage records (written first, so the answer
 * includes calls metered on this replica a moment ago), or the ledger's count if it is ahead
 * (calls on other replicas not yet flushed); reservations in flight from the ledger.
 */
export async function budgetStatus(
  deps: BudgetStatusDeps,
  customerId: string,
): Promise<BudgetStatus> {
  await deps.meter.flush();
  const budget = await deps.budgets.get(customerId);
  const now = deps.clock.now();
  const { start, end } = periodBounds(budget.period, now);
  const since = lookbackStart(now);
  const until = new Date(now + 1);
  const [durable, recent, firstUse, ledger] = await Promise.all([
    deps.usage.spend(customerId, new Date(start), new Date(end)),
    deps.usage.spend(customerId, new Date(since), until),
    deps.usage.firstUse(customerId, new Date(0), until),
    deps.ledger.spend(customerId, budget.period).catch(() => undefined),
  ]);
  const spent = Math.max(durable, ledger?.spentUsd ?? 0);
  return {
    object: "budget_status",
    customer_id: customerId,
    period: budget.period,
    period_start: new Date(start).toISOString(),
    period_end: new Date(end).toISOString(),
    spend_usd: round(spent),
    reserved_usd: round(ledger?.reservedUsd ?? 0),
    limit_usd: budget.limitUsd,
    remaining_usd: budget.limitUsd === null ? null : round(Math.max(0, budget.limitUsd - spent)),
    mode: budget.mode,
    alert_thresholds: budget.alertThresholds,
    alerts_crossed: alertsCrossed(spent, budget.limitUsd, budget.alertThresholds),
    forecast: forecast({
      now,
      periodStart: start,
      periodEnd: end,
      spentUsd: spent,
      limitUsd: budget.limitUsd,
      recentSpendUsd: recent,
      firstUse: firstUse?.getTime() ?? null,
    }),
  };
}
