import type { Clock } from "../core/clock.js";
import type { BudgetRepository, CustomerBudget } from "../store/budget-repository.js";
import { RefreshingCache } from "../store/refreshing-cache.js";

/**
 * Each customer's budget and custom limits, read from the store at most once per `ttlMs` per
 * replica (the hot path must not query Postgres per call). A change made on this replica applies
 * at once; other replicas see it within `ttlMs`.
 */
export class BudgetSettingsCache {
  private readonly cache: RefreshingCache<CustomerBudget>;

  constructor(
    private readonly repo: BudgetRepository,
    clock: Clock,
    ttlMs: number,
  ) {
    // While the store is unreachable the last known settings keep applying (calls go on).
    this.cache = new RefreshingCache(clock, ttlMs);
  }

  get(customerId: string): Promise<CustomerBudget> {
    return this.cache.get(customerId, () => this.repo.get(customerId));
  }

  invalidate(customerId: string): void {
    this.cache.invalidate(customerId);
  }
}
