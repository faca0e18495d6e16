import type { Clock } from "../core/clock.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { MemoryRateLimiter } from "./memory-rate-limiter.js";
import { checkAdmitInput, toAdmission } from "./rate-limit-decision.js";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "./rate-limit-scripts.js";
import type { Admission, RateLimiter, RateLimits, Reservation } from "./rate-limits.js";
import { integerArray } from "./redis-script.js";

/**
 * What happens while Redis is unreachable: "local" limits per replica in memory (the limit divided
 * by the expected replica count), "open" admits everything, "closed" refuses (answer 503).
 */
export type FailMode = "local" | "open" | "closed";

/** The two log calls the limiter makes (a pino Logger fits). */
export interface TransitionLogger {
  warn(fields: object, message: string): void;
  info(message: string): void;
}

export interface RedisRateLimiterOptions {
  clock: Clock;
  failMode?: FailMode;
  /** Replicas sharing the limit; the local fallback allows limit / expectedReplicas. Default 1. */
  expectedReplicas?: number;
  /** Prefix of the per-caller hash keys. Default "evident:rl:". */
  keyPrefix?: string;
  /** A command slower than this counts as Redis unreachable. Default 500 ms. */
  commandTimeoutMs?: number;
  /** Called once per transition between shared (false) and degraded (true) operation. */
  onDegradedChange?: (degraded: boolean) => void;
  logger?: TransitionLogger;
  /** Called with each Redis command sent (one call = one round trip); for metrics and benches. */
  onCommand?: (command: string) => void;
}

/**
 * Limits shared by every replica: one hash per caller in Redis, updated by one atomic Lua script
 * per admit (one round trip). Time comes from the caller's clock (see docs/limits.md).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly options: Required<
    Pick<
      RedisRateLimiterOptions,
      "failMode" | "expectedReplicas" | "keyPrefix" | "commandTimeoutMs"
    >
  > &
    RedisRateLimiterOptions;
  private readonly local: MemoryRateLimiter;
  private degradedNow = false;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisRateLimiterOptions,
  ) {
    this.options = {
      failMode: "local",
      expectedReplicas: 1,
      keyPrefix: "evident:rl:",
      commandTimeoutMs: 500,
      ...options,
    };
    this.local = new MemoryRateLimiter({ clock: options.clock, store: "local" });
  }

  /** True while decisions are made without Redis. */
  get degraded(): boolean {
    return this.degradedNow;
  }

  async admit(key: string, limits: RateLimits, reserveTokens: number): Promise<Admission> {
    checkAdmitInput(limits, reserveTokens);
    const reservation: Reservation = {
      key,
      reservedTokens: reserveTokens,
      tokensPerMinute: limits.tokensPerMinute,
      store: "primary",
    };
    if (limits.requestsPerMinute === null && limits.tokensPerMinute === null) {
      return toAdmission(
        true,
        { requests: 0, tokens: 0 },
        limits,
        reserveTokens,
        reservation,
        false,
      );
    }
    if (!this.connection.isReady()) return this.fallback(key, limits, reserveTokens, undefined);
    const now = Math.floor(this.options.clock.now());
    let reply: number[];
    try {
      const raw = await ADMIT_SCRIPT.run(
        this.connection,
        [this.options.keyPrefix + key],
        [now, limits.requestsPerMinute ?? 0, limits.tokensPerMinute ?? 0, reserveTokens],
        { timeoutMs: this.options.commandTimeoutMs, onCommand: this.options.onCommand },
      );
      reply = integerArray(raw, 3);
    } catch (err) {
      return this.fallback(key, limits, reserveTokens, err);
    }
    this.setDegraded(false, undefined);
    const [allowed, requests, tokens] = reply as [number, number, number];
    return toAdmission(
      allowed === 1,
      { requests, tokens },
      limits,
      reserveTokens,
      reservation,
      false,
    );
  }

  /** Never throws: a settle that cannot reach Redis is dropped (the charge stays as reserved). */
  async settle(reservation: Reservation, actualTokens: number): Promise<void> {
    if (reservation.store === "none") return;
    if (reservation.store === "local") return this.local.settle(reservation, actualTokens);
    const tpm = reservation.tokensPerMinute;
    const delta = Math.max(0, Math.round(actualTokens)) - reservation.reservedTokens;
    if (tpm === null || delta === 0) return;
    if (!this.connection.isReady()) return this.setDegraded(true, undefined);
    try {
      await SETTLE_SCRIPT.run(
        this.connection,
        [this.options.keyPrefix + reservation.key],
        [Math.floor(this.options.clock.now()), tpm, delta],
        { timeoutMs: this.options.commandTimeoutMs, onCommand: this.options.onCommand },
      );
    } catch (err) {
      this.setDegraded(true, err);
    }
  }

  private async fallback(
    key: string,
    limits: RateLimits,
    reserveTokens: number,
    err: unknown,
  ): Promise<Admission> {
    this.setDegraded(true, err);
    switch (this.options.failMode) {
      case "open":
        return {
          allowed: true,
          reservation: { key, reservedTokens: reserveTokens, tokensPerMinute: null, store: "none" },
          headers: {},
          degraded: true,
        };
      case "closed":
        return { allowed: false, reason: "unavailable", headers: {}, degraded: true };
      case "local": {
        const perReplica = (limit: number | null) =>
          limit === null ? null : Math.max(1, Math.floor(limit / this.options.expectedReplicas));
        return this.local.admit(
          key,
          {
            requestsPerMinute: perReplica(limits.requestsPerMinute),
            tokensPerMinute: perReplica(limits.tokensPerMinute),
          },
          reserveTokens,
        );
      }
    }
  }

  private setDegraded(degraded: boolean, err: unknown): void {
    if (degraded === this.degradedNow) return;
    this.degradedNow = degraded;
    const { logger, failMode } = this.options;
    if (degraded) {
      const reason = err instanceof Error ? err.message : "client not connected";
      logger?.warn({ failMode, reason }, "rate limits: Redis unreachable, applying the fail mode");
    } else {
      logger?.info("rate limits: Redis reachable again, limits are shared across replicas");
    }
    this.options.onDegradedChange?.(degraded);
  }
}
