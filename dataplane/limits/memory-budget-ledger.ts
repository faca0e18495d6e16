import type { Clock } from "../core/clock.js";
import {
  DEFAULT_RESERVATION_TTL_MS,
  DEFAULT_RETAIN_AFTER_PERIOD_MS,
  microsToUsd,
  newReservationId,
  parseReservationId,
  usdToMicros,
  type BudgetLedger,
  type BudgetLedgerTiming,
  type BudgetReservation,
  type BudgetSpend,
} from "./budget-ledger.js";
import { periodBounds, periodKey, type BudgetPeriod } from "./budget-period.js";

/** An open reservation's amount, or SETTLED: kept until its expiry so a second settle is a no-op. */
const SETTLED = -1;

interface Bucket {
  spent: number;
  reserved: number;
  /** nonce -> amount; insertion order is expiry order (one TTL for all), so purging stops early. */
  reservations: Map<string, { amount: number; expiresAt: number }>;
  /** When the whole bucket may be forgotten. */
  dropAt: number;
}

/** The ledger of a single process, with the same semantics as the Redis one. */
export class MemoryBudgetLedger implements BudgetLedger {
  private readonly buckets = new Map<string, Bucket>();
  private readonly reservationTtlMs: number;
  private readonly retainMs: number;
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    timing: BudgetLedgerTiming = {},
  ) {
    this.reservationTtlMs = timing.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
    this.retainMs = timing.retainAfterPeriodMs ?? DEFAULT_RETAIN_AFTER_PERIOD_MS;
  }

  async reserve(
    customerId: string,
    period: BudgetPeriod,
    estimatedUsd: number,
    hardLimitUsd: number | null,
  ): Promise<BudgetReservation> {
    const estimate = usdToMicros(estimatedUsd);
    const limit = hardLimitUsd === null ? null : usdToMicros(hardLimitUsd);
    const now = this.clock.now();
    const key = periodKey(period, now);
    const bucket = this.bucket(customerId, key, periodBounds(period, now).end + this.retainMs);
    if (limit !== null && bucket.spent + bucket.reserved + estimate > limit) {
      return { allowed: false, reservationId: null, ...this.totals(bucket) };
    }
    const reservationId = newReservationId(key, customerId);
    const { nonce } = parseReservationId(reservationId);
    bucket.reservations.set(nonce, { amount: estimate, expiresAt: now + this.reservationTtlMs });
    bucket.reserved += estimate;
    return { allowed: true, reservationId, ...this.totals(bucket) };
  }

  async settle(reservationId: string, actualUsd: number): Promise<void> {
    const actual = usdToMicros(actualUsd);
    const { periodKey: key, nonce, customerId } = parseReservationId(reservationId);
    const bucket = this.bucket(customerId, key, this.clock.now() + this.retainMs);
    const open = bucket.reservations.get(nonce);
    if (open?.amount === SETTLED) return;
    if (open) {
      bucket.reserved -= open.amount;
      open.amount = SETTLED;
    }
    bucket.spent += actual;
  }

  async spend(customerId: string, period: BudgetPeriod): Promise<BudgetSpend> {
    const now = this.clock.now();
    const key = periodKey(period, now);
    const bucket = this.buckets.get(`${customerId}\u0000${key}`);
    if (bucket) this.purge(bucket, now);
    return { period: key, ...(bucket ? this.totals(bucket) : { spentUsd: 0, reservedUsd: 0 }) };
  }

  private totals(bucket: Bucket): { spentUsd: number; reservedUsd: number } {
    return { spentUsd: microsToUsd(bucket.spent), reservedUsd: microsToUsd(bucket.reserved) };
  }

  private bucket(customerId: string, key: string, dropAt: number): Bucket {
    const now = this.clock.now();
    this.sweep(now);
    const id = `${customerId}\u0000${key}`;
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = { spent: 0, reserved: 0, reservations: new Map(), dropAt };
      this.buckets.set(id, bucket);
    }
    bucket.dropAt = Math.max(bucket.dropAt, dropAt);
    this.purge(bucket, now);
    return bucket;
  }

  /** Releases expired reservations (and forgets settled ones) from the oldest end. */
  private purge(bucket: Bucket, now: number): void {
    for (const [nonce, r] of bucket.reservations) {
      if (r.expiresAt > now) break;
      if (r.amount !== SETTLED) bucket.reserved -= r.amount;
      bucket.reservations.delete(nonce);
    }
  }

  /** Hourly, forget periods that ended longer ago than they are retained. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 3_600_000) return;
    this.lastSweep = now;
    for (const [id, bucket] of this.buckets) if (bucket.dropAt <= now) this.buckets.delete(id);
  }
}
