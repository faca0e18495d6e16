import type { Clock } from "../core/clock.js";
import {
  EMPTY_BUCKET,
  WINDOW_MS,
  charge,
  drainedLevel,
  fits,
  msUntilEmpty,
  type BucketState,
} from "./gcra.js";
import { checkAdmitInput, toAdmission } from "./rate-limit-decision.js";
import type { Admission, RateLimiter, RateLimits, Reservation } from "./rate-limits.js";

interface CallerState {
  requests: BucketState;
  tokens: BucketState;
  /** When both buckets will have drained to empty (ms since the epoch). */
  emptyAt: number;
}

export interface MemoryRateLimiterOptions {
  clock: Clock;
  /** Most callers kept; beyond it the least recently used is forgotten. Default 100,000. */
  maxKeys?: number;
  /** How the reservations it hands out are labelled (the Redis limiter's fallback uses "local"). */
  store?: Reservation["store"];
}

/**
 * The in-process limiter: the same GCRA as Redis, for one replica or as Redis's fallback. Memory is
 * bounded: a caller idle for a whole window has drained to nothing and is dropped, and beyond
 * `maxKeys` the least recently used caller is dropped.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly callers = new Map<string, CallerState>();
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private readonly store: Reservation["store"];
  private lastSweep = 0;
  /** The key touched last (the most recently used end of `callers`). */
  private newest: string | undefined;

  constructor(options: MemoryRateLimiterOptions) {
    this.clock = options.clock;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.store = options.store ?? "primary";
  }

  /** Callers currently held in memory. */
  get size(): number {
    return this.callers.size;
  }

  async admit(key: string, limits: RateLimits, reserveTokens: number): Promise<Admission> {
    checkAdmitInput(limits, reserveTokens);
    const now = Math.floor(this.clock.now());
    this.sweep(now);
    const state = this.touch(key);
    const rpm = limits.requestsPerMinute;
    const tpm = limits.tokensPerMinute;
    const requestLevel = rpm === null ? 0 : drainedLevel(state.requests, rpm, now);
    const tokenLevel = tpm === null ? 0 : drainedLevel(state.tokens, tpm, now);
    const allowed =
      (rpm === null || fits(requestLevel, rpm, 1)) &&
      (tpm === null || fits(tokenLevel, tpm, reserveTokens));
    if (allowed) {
      if (rpm !== null) {
        state.requests = charge(state.requests, rpm, now, 1);
        state.emptyAt = Math.max(state.emptyAt, now + msUntilEmpty(state.requests.level, rpm));
      }
      if (tpm !== null) {
        state.tokens = charge(state.tokens, tpm, now, reserveTokens);
        state.emptyAt = Math.max(state.emptyAt, now + msUntilEmpty(state.tokens.level, tpm));
      }
    }
    const levels = allowed
      ? { requests: state.requests.level, tokens: state.tokens.level }
      : { requests: requestLevel, tokens: tokenLevel };
    const reservation: Reservation = {
      key,
      reservedTokens: reserveTokens,
      tokensPerMinute: tpm,
      store: this.store,
    };
    return toAdmission(allowed, levels, limits, reserveTokens, reservation, this.store === "local");
  }

  async settle(reservation: Reservation, actualTokens: number): Promise<void> {
    const tpm = reservation.tokensPerMinute;
    const delta = Math.max(0, Math.round(actualTokens)) - reservation.reservedTokens;
    if (tpm === null || delta === 0) return;
    const now = Math.floor(this.clock.now());
    const state = this.touch(reservation.key);
    state.tokens = charge(state.tokens, tpm, now, delta);
    state.emptyAt = Math.max(state.emptyAt, now + msUntilEmpty(state.tokens.level, tpm));
  }

  /**
   * The caller's state, moved to the most recently used end; evicts beyond maxKeys. The caller
   * touched last is already there: its entry is not moved again (a Map's delete and set of the
   * same key on every call of a busy caller churns the table for nothing).
   */
  private touch(key: string): CallerState {
    let state = this.callers.get(key);
    if (state !== undefined && key === this.newest) return state;
    this.newest = key;
    if (state) this.callers.delete(key);
    else state = { requests: EMPTY_BUCKET, tokens: EMPTY_BUCKET, emptyAt: 0 };
    this.callers.set(key, state);
    while (this.callers.size > this.maxKeys) {
      const oldest = this.callers.keys().next().value;
      if (oldest === undefined) break;
      this.callers.delete(oldest);
    }
    return state;
  }

  /** At most once a window, drop callers that have drained: forgetting them changes nothing. */
  private sweep(now: number): void {
    if (now - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, state] of this.callers) {
      if (state.emptyAt <= now) this.callers.delete(key);
    }
  }
}
