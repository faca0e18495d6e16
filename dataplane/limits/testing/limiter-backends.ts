import { randomBytes } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { connectRedis, type RedisConnection } from "../../store/redis-connection.js";
import { MemoryRateLimiter } from "../memory-rate-limiter.js";
import type { RateLimiter } from "../rate-limits.js";
import { RedisRateLimiter, type RedisRateLimiterOptions } from "../redis-rate-limiter.js";

export interface OpenLimiter {
  limiter: RateLimiter;
  close(): Promise<void>;
}

export interface LimiterBackend {
  name: "memory" | "redis";
  open(clock: Clock): Promise<OpenLimiter>;
}

/** A key prefix no other test run uses, so runs never see each other's state. */
export function uniquePrefix(label: string): string {
  return `evident:test:${label}:${randomBytes(6).toString("hex")}:`;
}

/** Opens a Redis limiter on its own connection (one connection = one replica). */
export async function openRedisLimiter(
  url: string,
  options: RedisRateLimiterOptions,
): Promise<{ limiter: RedisRateLimiter; connection: RedisConnection; close(): Promise<void> }> {
  const connection = await connectRedis(url);
  const limiter = new RedisRateLimiter(connection, options);
  return { limiter, connection, close: () => connection.close() };
}

/** The memory limiter always; the Redis one when a Redis URL is given. */
export function limiterBackends(redisUrl: string | undefined): LimiterBackend[] {
  const backends: LimiterBackend[] = [
    {
      name: "memory",
      open: async (clock) => ({
        limiter: new MemoryRateLimiter({ clock }),
        close: async () => undefined,
      }),
    },
  ];
  if (redisUrl) {
    const url = redisUrl;
    backends.push({
      name: "redis",
      open: (clock) => openRedisLimiter(url, { clock, keyPrefix: uniquePrefix("rl") }),
    });
  }
  return backends;
}

/** Deletes every key under a test's prefix (budget keys live for weeks otherwise). */
export async function deleteKeysUnder(connection: RedisConnection, prefix: string): Promise<void> {
  for await (const keys of connection.client.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
    if (keys.length > 0) await connection.client.del(keys);
  }
}
