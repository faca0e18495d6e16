/**
 * GCRA (a leaky bucket kept as one number per dimension) in exact integer arithmetic, shared by the
 * memory limiter and mirrored line for line by the Redis Lua script.
 *
 * A dimension with limit L per WINDOW_MS keeps a `level`: the outstanding cost scaled by WINDOW_MS,
 * so that a unit of cost adds WINDOW_MS and every elapsed millisecond drains L. The capacity is
 * L * WINDOW_MS. All values stay integers below 2^53 for limits up to MAX_LIMIT.
 */

export const WINDOW_MS = 60_000;
/** Largest accepted per-minute limit: keeps L * WINDOW_MS and levels exact in a double. */
export const MAX_LIMIT = 1_000_000_000;

export interface BucketState {
  level: number;
  /** Milliseconds since the epoch of the last update. */
  at: number;
}

export const EMPTY_BUCKET: BucketState = { level: 0, at: 0 };

/** The level after draining until `now` (a clock behind `at` drains nothing). */
export function drainedLevel(state: BucketState, limit: number, now: number): number {
  const elapsed = Math.max(0, now - state.at);
  return Math.max(0, state.level - elapsed * limit);
}

export function capacity(limit: number): number {
  return limit * WINDOW_MS;
}

export function fits(level: number, limit: number, cost: number): boolean {
  return level + cost * WINDOW_MS <= capacity(limit);
}

/** Units that still fit at this level (0 when full or in debt). */
export function remainingUnits(level: number, limit: number): number {
  return Math.max(0, Math.floor((capacity(limit) - level) / WINDOW_MS));
}

/** Milliseconds until the bucket is empty again (the limit is back to its initial state). */
export function msUntilEmpty(level: number, limit: number): number {
  return Math.ceil(level / limit);
}

/** Milliseconds until `cost` fits; Infinity when it never can (cost above the limit). */
export function msUntilFits(level: number, limit: number, cost: number): number {
  if (cost > limit) return Infinity;
  const excess = level + cost * WINDOW_MS - capacity(limit);
  return excess <= 0 ? 0 : Math.ceil(excess / limit);
}

/** Add (or, when negative, refund) cost at `now`; a refund never takes the level below zero. */
export function charge(state: BucketState, limit: number, now: number, cost: number): BucketState {
  const level = Math.max(0, drainedLevel(state, limit, now) + cost * WINDOW_MS);
  return { level, at: Math.max(state.at, now) };
}
