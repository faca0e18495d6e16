import type { BudgetPeriod } from "../limits/budget-period.js";
import type { Queryable } from "./database.js";

/** A customer's budget and custom rate limits (customer_budgets). */
export interface CustomerBudget {
  customerId: string;
  /** USD per period; null: no budget. */
  limitUsd: number | null;
  period: BudgetPeriod;
  mode: "hard" | "soft";
  alertThresholds: number[];
  /** Custom per-minute limits; null: the tier's default. */
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  updatedAt: Date | null;
}

export const DEFAULT_ALERT_THRESHOLDS = [0.5, 0.8, 1.0];

export function defaultBudget(customerId: string): CustomerBudget {
  return {
    customerId,
    limitUsd: null,
    period: "monthly",
    mode: "soft",
    alertThresholds: [...DEFAULT_ALERT_THRESHOLDS],
    requestsPerMinute: null,
    tokensPerMinute: null,
    updatedAt: null,
  };
}

interface BudgetRow {
  customer_id: string;
  limit_usd: number | null;
  period: BudgetPeriod;
  mode: "hard" | "soft";
  alert_thresholds: number[];
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  updated_at: Date;
}

export class BudgetRepository {
  constructor(private readonly db: Queryable) {}

  /** The stored budget, or the default (no limit, monthly, soft) when none was set. */
  async get(customerId: string): Promise<CustomerBudget> {
    const rows = await this.db.query<BudgetRow>(
      "SELECT * FROM customer_budgets WHERE customer_id = $1",
      [customerId],
    );
    const r = rows[0];
    if (!r) return defaultBudget(customerId);
    return {
      customerId: r.customer_id,
      limitUsd: r.limit_usd,
      period: r.period,
      mode: r.mode,
      alertThresholds: r.alert_thresholds,
      requestsPerMinute: r.requests_per_minute,
      tokensPerMinute: r.tokens_per_minute,
      updatedAt: new Date(r.updated_at),
    };
  }

  async put(b: CustomerBudget): Promise<void> {
    await this.db.query(
      `INSERT INTO customer_budgets (customer_id, limit_usd, period, mode, alert_thresholds,
         requests_per_minute, tokens_per_minute, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, now())
       ON CONFLICT (customer_id) DO UPDATE SET limit_usd = EXCLUDED.limit_usd,
         period = EXCLUDED.period, mode = EXCLUDED.mode,
         alert_thresholds = EXCLUDED.alert_thresholds,
         requests_per_minute = EXCLUDED.requests_per_minute,
         tokens_per_minute = EXCLUDED.tokens_per_minute, updated_at = now()`,
      [
        b.customerId,
        b.limitUsd,
        b.period,
        b.mode,
        JSON.stringify(b.alertThresholds),
        b.requestsPerMinute,
        b.tokensPerMinute,
      ],
    );
  }
}
