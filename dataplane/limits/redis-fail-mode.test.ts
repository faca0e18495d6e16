import test from "ava";
import { REDIS_URL } from "../../test/support/databases.js";
import { manualClock } from "../core/clock.js";
import { connectRedis } from "../store/redis-connection.js";
import { rateLimitsFor, type Admission } from "./rate-limits.js";
import type { FailMode } from "./redis-rate-limiter.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";
import { uniquePrefix } from "./testing/limiter-backends.js";
import { startTcpFaultProxy, type TcpFaultProxy } from "./testing/tcp-fault-proxy.js";

const FREE = rateLimitsFor("free");

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function logSpy() {
  const lines: { level: "warn" | "info"; msg: string }[] = [];
  return {
    lines,
    logger: {
      warn: (_obj: object, msg: string) => void lines.push({ level: "warn", msg }),
      info: (msg: string) => void lines.push({ level: "info", msg }),
    },
  };
}

function redisHostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379) };
}

/** A limiter whose connection runs through a proxy that plays "Redis stopped" (real Redis behind). */
async function limiterBehindProxy(url: string, failMode: FailMode, commandTimeoutMs = 500) {
  const { host, port } = redisHostPort(url);
  const proxy: TcpFaultProxy = await startTcpFaultProxy(host, port);
  const connection = await connectRedis(proxy.url);
  const transitions: boolean[] = [];
  const log = logSpy();
  const limiter = new RedisRateLimiter(connection, {
    clock: manualClock(Date.UTC(2026, 10, 22, 12)),
    failMode,
    expectedReplicas: 2,
    keyPrefix: uniquePrefix("failmode"),
    commandTimeoutMs,
    onDegradedChange: (d) => void transitions.push(d),
    logger: log.logger,
  });
  return {
    limiter,
    connection,
    proxy,
    transitions,
    log,
    async close() {
      await connection.close();
      await proxy.close();
    },
  };
}

async function admitMany(limiter: RedisRateLimiter, n: number): Promise<Admission[]> {
  const results: Admission[] = [];
  for (let i = 0; i < n; i++) results.push(await limiter.admit("c1", FREE, 10));
  return results;
}

if (REDIS_URL) {
  const url = REDIS_URL;

  test("redis stopped (via a TCP proxy we cut), fail mode local: per-replica limits, one log line per transition, Redis again once it is back", async (t) => {
    const s = await limiterBehindProxy(url, "local");
    try {
      const shared = await s.limiter.admit("c1", FREE, 10);
      t.like(shared, { allowed: true, degraded: false, reservation: { store: "primary" } });

      await s.proxy.down();
      const local = await admitMany(s.limiter, 15);
      t.is(local.filter((r) => r.allowed).length, 10); // 20 per minute over 2 expected replicas
      t.like(local[0], {
        allowed: true,
        degraded: true,
        reservation: { store: "local" },
        headers: { "x-ratelimit-limit-requests": "10" },
      });
      t.like(local[14], { allowed: false, reason: "rate_limited", degraded: true });
      t.true(s.limiter.degraded);
      const first = local[0]!;
      if (first.allowed) await t.notThrowsAsync(s.limiter.settle(first.reservation, 5));
      if (shared.allowed) await t.notThrowsAsync(s.limiter.settle(shared.reservation, 5));

      await s.proxy.up();
      await until(() => s.connection.isReady(), "client reconnects through the proxy");
      const back = await s.limiter.admit("c1", FREE, 10);
      t.like(back, { allowed: true, degraded: false, reservation: { store: "primary" } });
      t.like(back.headers, {
        "x-ratelimit-limit-requests": "20",
        "x-ratelimit-remaining-requests": "18", // the shared count kept the request made before
      });
      t.false(s.limiter.degraded);
      t.deepEqual(s.transitions, [true, false]);
      t.deepEqual(
        s.log.lines.map((l) => l.level),
        ["warn", "info"],
      );
    } finally {
      await s.close();
    }
  });

  test("redis stopped, fail mode open: admitted without headers, settle is harmless", async (t) => {
    const s = await limiterBehindProxy(url, "open");
    try {
      await s.proxy.down();
      const results = await admitMany(s.limiter, 30);
      t.true(results.every((r) => r.allowed && r.degraded));
      t.deepEqual(results[0]!.headers, {});
      const first = results[0]!;
      if (first.allowed) await t.notThrowsAsync(s.limiter.settle(first.reservation, 1_000));
    } finally {
      await s.close();
    }
  });

  test("redis stopped, fail mode closed: refused as unavailable (for a 503)", async (t) => {
    const s = await limiterBehindProxy(url, "closed");
    try {
      await s.proxy.down();
      t.deepEqual(await s.limiter.admit("c1", FREE, 10), {
        allowed: false,
        reason: "unavailable",
        headers: {},
        degraded: true,
      });
    } finally {
      await s.close();
    }
  });

  test("redis hangs (a proxy that answers nothing): the command times out and the fail mode applies", async (t) => {
    const s = await limiterBehindProxy(url, "local", 100);
    try {
      s.proxy.setBlackHole(true);
      const r = await s.limiter.admit("c1", FREE, 10);
      t.like(r, { allowed: true, degraded: true, reservation: { store: "local" } });
      t.deepEqual(s.transitions, [true]);
    } finally {
      await s.close();
    }
  });

  test("redis connection closed for good: the limiter keeps answering from the local fallback", async (t) => {
    const s = await limiterBehindProxy(url, "local");
    try {
      await s.connection.close();
      const results = await admitMany(s.limiter, 12);
      t.is(results.filter((r) => r.allowed).length, 10);
      t.true(results.every((r) => r.degraded));
    } finally {
      await s.proxy.close();
    }
  });
} else {
  test.skip("redis fail modes (set REDIS_URL to run)", () => undefined);
}
