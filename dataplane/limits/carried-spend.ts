import type { Clock } from "../core/clock.js";
import type { UsageRepository } from "../store/usage-repository.js";
import type { BudgetLedger } from "./budget-ledger.js";
import { periodBounds, type BudgetPeriod } from "./budget-period.js";

/**
 * Spend of the current period that the ledger does not know about: the durable usage records'
 * total minus the ledger's settled spend, when positive. It is what the process-local ledger lost
 * in a restart (or Redis lost in a flush); with a shared ledger kept since the period began it is
 * 0. Refreshed at most once per `ttlMs` per customer.
 */
export class CarriedSpend {
  private readonly entries = new Map<string, { at: number; value: Promise<number> }>();

  constructor(
    private readonly usage: UsageRepository,
    private readonly ledger: BudgetLedger,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get(customerId: string, period: BudgetPeriod): Promise<number> {
    const now = this.clock.now();
    const id = `${customerId}\u0000${period}`;
    const hit = this.entries.get(id);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = this.compute(customerId, period, now);
    this.entries.set(id, { at: now, value });
    value.catch(() => this.entries.delete(id));
    if (this.entries.size > 100_000) this.entries.clear();
    return value;
  }

  private async compute(customerId: string, period: BudgetPeriod, now: number): Promise<number> {
    const { start, end } = periodBounds(period, now);
    const [durable, ledger] = await Promise.all([
      this.usage.spend(customerId, new Date(start), new Date(end)),
      this.ledger.spend(customerId, period),
    ]);
    return Math.max(0, durable - ledger.spentUsd);
  }
}
