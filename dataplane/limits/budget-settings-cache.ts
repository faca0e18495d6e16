import type { Clock } from "../core/clock.js";
import type { BudgetRepository, CustomerBudget } from "../store/budget-repository.js";

/**
 * Each customer's budget and custom limits, read from the store at most once per `ttlMs` per
 * replica (the hot path must not query Postgres per call). A change made on this replica applies
 * at once; other replicas see it within `ttlMs`.
 */
export class BudgetSettingsCache {
  private readonly entries = new Map<string, { at: number; value: Promise<CustomerBudget> }>();

  constructor(
    private readonly repo: BudgetRepository,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get(customerId: string): Promise<CustomerBudget> {
    const now = this.clock.now();
    const hit = this.entries.get(customerId);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = this.repo.get(customerId);
    this.entries.set(customerId, { at: now, value });
    value.catch(() => this.entries.delete(customerId));
    if (this.entries.size > 100_000) this.entries.clear();
    return value;
  }

  invalidate(customerId: string): void {
    this.entries.delete(customerId);
  }
}
