import { randomBytes } from "node:crypto";
import { GatewayError } from "../core/errors.js";
import type { BudgetPeriod } from "./budget-period.js";

export interface BudgetReservation {
  allowed: boolean;
  /** Pass to `settle` once the call's real cost is known; null when refused. */
  reservationId: string | null;
  /** Settled spend of the period, after this reservation. */
  spentUsd: number;
  /** Open reservations of the period, including this one when allowed. */
  reservedUsd: number;
}

export interface BudgetSpend {
  /** The period's key, e.g. "2026-11". */
  period: string;
  spentUsd: number;
  reservedUsd: number;
}

/**
 * Spend per customer and period, with reservations so concurrent calls on several replicas cannot
 * overshoot a hard limit: reserve the estimated cost before the call, settle to the real cost after.
 * Amounts are kept in integer micro-dollars.
 */
export interface BudgetLedger {
  /** Reserves `estimatedUsd` if spent + reserved + estimate <= hardLimitUsd (null: no limit). */
  reserve(
    customerId: string,
    period: BudgetPeriod,
    estimatedUsd: number,
    hardLimitUsd: number | null,
  ): Promise<BudgetReservation>;
  /**
   * Replaces the reservation by the real cost. Settling twice is harmless while the reservation
   * would still be open; a reservation that already expired is settled by adding the real cost.
   */
  settle(reservationId: string, actualUsd: number): Promise<void>;
  spend(customerId: string, period: BudgetPeriod): Promise<BudgetSpend>;
}

export interface BudgetLedgerTiming {
  /** An unsettled reservation is released after this long. Default 10 minutes. */
  reservationTtlMs?: number;
  /** A period's totals are kept this long after the period ends. Default 35 days. */
  retainAfterPeriodMs?: number;
}

export const DEFAULT_RESERVATION_TTL_MS = 10 * 60_000;
export const DEFAULT_RETAIN_AFTER_PERIOD_MS = 35 * 86_400_000;

export function usdToMicros(usd: number): number {
  if (!Number.isFinite(usd) || usd < 0) {
    throw new GatewayError("internal_error", "budget amounts must be finite and non-negative");
  }
  return Math.round(usd * 1_000_000);
}

export function microsToUsd(micros: number): number {
  return micros / 1_000_000;
}

/** A reservation id names its bucket: "<period key>.<nonce>.<customer id>". */
export function newReservationId(periodKey: string, customerId: string): string {
  return `${periodKey}.${randomBytes(9).toString("base64url")}.${customerId}`;
}

export function parseReservationId(id: string): {
  periodKey: string;
  nonce: string;
  customerId: string;
} {
  const first = id.indexOf(".");
  const second = id.indexOf(".", first + 1);
  if (first <= 0 || second <= first + 1 || second === id.length - 1) {
    throw new GatewayError("internal_error", "malformed budget reservation id");
  }
  return {
    periodKey: id.slice(0, first),
    nonce: id.slice(first + 1, second),
    customerId: id.slice(second + 1),
  };
}
