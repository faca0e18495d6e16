import type { Clock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import type { RedisConnection } from "../store/redis-connection.js";
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
import {
  BUDGET_RESERVE_SCRIPT,
  BUDGET_SETTLE_SCRIPT,
  BUDGET_SPEND_SCRIPT,
} from "./budget-scripts.js";
import { integerArray, type RedisScript } from "./redis-script.js";

export interface RedisBudgetLedgerOptions extends BudgetLedgerTiming {
  clock: Clock;
  /** Default "evident:budget:". */
  keyPrefix?: string;
  /** Default 500 ms. */
  commandTimeoutMs?: number;
  onCommand?: (command: string) => void;
  /** Told when a settle could not reach Redis (settle itself never throws). */
  onSettleError?: (err: GatewayError) => void;
}

/**
 * The ledger shared by every replica: one atomic Lua script per operation. When Redis cannot be
 * reached, reserve and spend throw GatewayError service_unavailable (the caller decides to fail
 * open or closed); settle never throws, since it runs when a response or stream has ended: it
 * reports to onSettleError and the reservation is released when it expires.
 */
export class RedisBudgetLedger implements BudgetLedger {
  private readonly reservationTtlMs: number;
  private readonly retainMs: number;
  private readonly keyPrefix: string;

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisBudgetLedgerOptions,
  ) {
    this.reservationTtlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
    this.retainMs = options.retainAfterPeriodMs ?? DEFAULT_RETAIN_AFTER_PERIOD_MS;
    this.keyPrefix = options.keyPrefix ?? "evident:budget:";
  }

  async reserve(
    customerId: string,
    period: BudgetPeriod,
    estimatedUsd: number,
    hardLimitUsd: number | null,
  ): Promise<BudgetReservation> {
    const estimate = usdToMicros(estimatedUsd);
    const limit = hardLimitUsd === null ? -1 : usdToMicros(hardLimitUsd);
    const now = Math.floor(this.options.clock.now());
    const key = periodKey(period, now);
    const reservationId = newReservationId(key, customerId);
    const { nonce } = parseReservationId(reservationId);
    const keyTtl = periodBounds(period, now).end + this.retainMs - now;
    const reply = integerArray(
      await this.run(BUDGET_RESERVE_SCRIPT, customerId, key, [
        now,
        nonce,
        estimate,
        limit,
        now + this.reservationTtlMs,
        keyTtl,
      ]),
      3,
    );
    const [allowed, spent, reserved] = reply as [number, number, number];
    return {
      allowed: allowed === 1,
      reservationId: allowed === 1 ? reservationId : null,
      spentUsd: microsToUsd(spent),
      reservedUsd: microsToUsd(reserved),
    };
  }

  async settle(reservationId: string, actualUsd: number): Promise<void> {
    const actual = usdToMicros(actualUsd);
    const { periodKey: key, nonce, customerId } = parseReservationId(reservationId);
    const now = Math.floor(this.options.clock.now());
    try {
      await this.run(BUDGET_SETTLE_SCRIPT, customerId, key, [now, nonce, actual, this.retainMs]);
    } catch (err) {
      if (err instanceof GatewayError) this.options.onSettleError?.(err);
      else throw err;
    }
  }

  async spend(customerId: string, period: BudgetPeriod): Promise<BudgetSpend> {
    const now = Math.floor(this.options.clock.now());
    const key = periodKey(period, now);
    const reply = integerArray(await this.run(BUDGET_SPEND_SCRIPT, customerId, key, [now]), 2);
    const [spent, reserved] = reply as [number, number];
    return { period: key, spentUsd: microsToUsd(spent), reservedUsd: microsToUsd(reserved) };
  }

  private async run(
    script: RedisScript,
    customerId: string,
    key: string,
    args: (string | number)[],
  ): Promise<unknown> {
    // One hash tag per customer and period keeps both keys in one slot on a Redis Cluster.
    const base = `${this.keyPrefix}{${customerId}:${key}}`;
    if (!this.connection.isReady()) {
      throw new GatewayError("service_unavailable", "the budget store is unavailable");
    }
    try {
      return await script.run(this.connection, [base, `${base}:expiry`], args, {
        timeoutMs: this.options.commandTimeoutMs ?? 500,
        onCommand: this.options.onCommand,
      });
    } catch (err) {
      throw new GatewayError("service_unavailable", "the budget store is unavailable", {
        cause: err,
      });
    }
  }
}
