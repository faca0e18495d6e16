import { randomBytes } from "node:crypto";
import type { Clock } from "../core/clock.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { rateLimitsFor, type RateLimits } from "./rate-limits.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";

export interface RoundTripCount {
  admits: number;
  /** Redis commands sent by the first admit (2 when the script was not yet loaded: EVALSHA, EVAL). */
  firstAdmitCommands: number;
  /** Commands sent by the following admits, each one round trip (no pipelining). */
  commands: number;
  commandsPerAdmit: number;
  /** Commands sent by one settle that changes the charge. */
  settleCommands: number;
}

/**
 * Counts the Redis round trips of the limiter's hot path on a live connection, client side (every
 * command passes through the limiter's onCommand hook), so other clients of the server don't
 * distort it. Uses keys of its own under a random prefix; they expire within a minute.
 */
export async function measureAdmitRoundTrips(
  connection: RedisConnection,
  admits = 100,
  limits: RateLimits = rateLimitsFor("business"),
  clock: Clock = { now: () => Date.now() },
): Promise<RoundTripCount> {
  let sent = 0;
  const limiter = new RedisRateLimiter(connection, {
    clock,
    failMode: "closed",
    keyPrefix: `evident:bench:${randomBytes(6).toString("hex")}:`,
    onCommand: () => {
      sent += 1;
    },
  });
  const first = await limiter.admit("round-trips", limits, 10);
  const firstAdmitCommands = sent;
  sent = 0;
  for (let i = 0; i < admits; i++) await limiter.admit("round-trips", limits, 10);
  const commands = sent;
  sent = 0;
  if (first.allowed) await limiter.settle(first.reservation, 20);
  return {
    admits,
    firstAdmitCommands,
    commands,
    commandsPerAdmit: commands / admits,
    settleCommands: sent,
  };
}
