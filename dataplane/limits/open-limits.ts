import type { RedisConnection } from "../store/redis-connection.js";
import type { BudgetLedger, BudgetLedgerTiming } from "./budget-ledger.js";
import { MemoryBudgetLedger } from "./memory-budget-ledger.js";
import { MemoryRateLimiter } from "./memory-rate-limiter.js";
import type { RateLimiter } from "./rate-limits.js";
import { RedisBudgetLedger } from "./redis-budget-ledger.js";
import { RedisRateLimiter, type RedisRateLimiterOptions } from "./redis-rate-limiter.js";

export interface LimitsOptions extends Omit<RedisRateLimiterOptions, "keyPrefix" | "onCommand"> {
  /** Shared state for every replica; without it, limits and budgets live in this process. */
  redis?: RedisConnection;
  budget?: BudgetLedgerTiming;
}

export interface Limits {
  /**
   * One limiter for inference (key: customerLimitKey, limits: rateLimitsFor) and the management
   * API (key: managementLimitKey, limits: managementLimits); the keys never collide.
   */
  rateLimiter: RateLimiter;
  budgets: BudgetLedger;
}

/** The data plane's limiters and budget ledger: Redis-backed when a connection is given. */
export function openLimits(options: LimitsOptions): Limits {
  const { redis, budget, ...limiterOptions } = options;
  if (!redis) {
    return {
      rateLimiter: new MemoryRateLimiter({ clock: options.clock }),
      budgets: new MemoryBudgetLedger(options.clock, budget),
    };
  }
  return {
    rateLimiter: new RedisRateLimiter(redis, limiterOptions),
    budgets: new RedisBudgetLedger(redis, { clock: options.clock, ...budget }),
  };
}
