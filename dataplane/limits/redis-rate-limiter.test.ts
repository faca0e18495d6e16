import test from "ava";
import { REDIS_URL } from "../../test/support/databases.js";
import { manualClock, systemClock } from "../core/clock.js";
import { connectRedis } from "../store/redis-connection.js";
import { measureAdmitRoundTrips } from "./measure-round-trips.js";
import { rateLimitsFor, type RateLimits } from "./rate-limits.js";
import { RedisScript } from "./redis-script.js";
import { openRedisLimiter, uniquePrefix } from "./testing/limiter-backends.js";

const FREE = rateLimitsFor("free");
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

if (REDIS_URL) {
  const url = REDIS_URL;

  test("redis: two replicas share one limit: a concurrent burst of 100 admits for 20 admits exactly 20", async (t) => {
    const clock = manualClock(T0);
    const keyPrefix = uniquePrefix("replicas");
    const a = await openRedisLimiter(url, { clock, keyPrefix });
    const b = await openRedisLimiter(url, { clock, keyPrefix });
    try {
      const burst = Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).limiter.admit("customer:shared", FREE, 0),
      );
      const results = await Promise.all(burst);
      t.is(results.filter((r) => r.allowed).length, 20);
      t.true(results.every((r) => !r.degraded));

      const tokenLimits: RateLimits = { requestsPerMinute: 1_000, tokensPerMinute: 10_000 };
      const tokenBurst = Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b).limiter.admit("customer:tokens", tokenLimits, 1_000),
      );
      t.is((await Promise.all(tokenBurst)).filter((r) => r.allowed).length, 10);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("redis: one round trip per admit and per settle", async (t) => {
    const connection = await connectRedis(url);
    try {
      const count = await measureAdmitRoundTrips(connection, 50);
      t.is(count.commands, 50);
      t.is(count.commandsPerAdmit, 1);
      t.is(count.settleCommands, 1);
      t.true(count.firstAdmitCommands === 1 || count.firstAdmitCommands === 2);
    } finally {
      await connection.close();
    }
  });

  test("redis: a script the server does not know is sent with EVAL once, then EVALSHA", async (t) => {
    const connection = await connectRedis(url);
    try {
      const script = new RedisScript(
        `-- ${uniquePrefix("noscript")}\nreturn tonumber(ARGV[1]) + 1`,
      );
      const sent: string[] = [];
      const options = { timeoutMs: 1_000, onCommand: (c: string) => void sent.push(c) };
      t.is(await script.run(connection, [], [41], options), 42);
      t.is(await script.run(connection, [], [1], options), 2);
      t.deepEqual(sent, ["EVALSHA", "EVAL", "EVALSHA"]);
    } finally {
      await connection.close();
    }
  });

  test("redis: a caller's key expires once its buckets have drained", async (t) => {
    const keyPrefix = uniquePrefix("ttl");
    const { limiter, connection, close } = await openRedisLimiter(url, {
      clock: systemClock,
      keyPrefix,
    });
    try {
      await limiter.admit("c1", FREE, 0); // one request drains in 3 s on Free
      const ttl = await connection.client.pTTL(`${keyPrefix}c1`);
      t.true(ttl > 0 && ttl <= 4_000, `ttl ${ttl}`);
      const r = await limiter.admit("c1", FREE, 40_000 - 1); // tokens drain in ~60 s
      t.true(r.allowed);
      const longer = await connection.client.pTTL(`${keyPrefix}c1`);
      t.true(longer > 4_000 && longer <= 61_000, `ttl ${longer}`);
    } finally {
      await close();
    }
  });
} else {
  test.skip("redis rate limiter: replicas, round trips, TTLs (set REDIS_URL to run)", () =>
    undefined);
}
