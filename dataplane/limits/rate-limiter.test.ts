import test, { type ExecutionContext } from "ava";
import { REDIS_URL } from "../../test/support/databases.js";
import { manualClock } from "../core/clock.js";
import { rateLimitsFor, type Admission, type RateLimiter } from "./rate-limits.js";
import { limiterBackends } from "./testing/limiter-backends.js";

// 12:00:59 UTC: one second before a minute boundary, where a fixed window would reset.
const T0 = Date.UTC(2026, 10, 22, 12, 0, 59);
const FREE = rateLimitsFor("free");

async function admitMany(limiter: RateLimiter, key: string, n: number, tokens = 0) {
  const results: Admission[] = [];
  for (let i = 0; i < n; i++) results.push(await limiter.admit(key, FREE, tokens));
  return results;
}

function allowedCount(results: Admission[]): number {
  return results.filter((r) => r.allowed).length;
}

type Clock = ReturnType<typeof manualClock>;
type Body = (t: ExecutionContext, limiter: RateLimiter, clock: Clock) => Promise<void>;

// Every scenario runs against the memory limiter and, with REDIS_URL, the Redis one: same answers.
for (const backend of limiterBackends(REDIS_URL)) {
  const scenario = (title: string, body: Body) =>
    test(`${backend.name}: ${title}`, async (t) => {
      const clock = manualClock(T0);
      const opened = await backend.open(clock);
      try {
        await body(t, opened.limiter, clock);
      } finally {
        await opened.close();
      }
    });

  scenario(
    "free tier: 20 requests pass, the 21st within the minute is refused with headers",
    async (t, limiter) => {
      const results = await admitMany(limiter, "c1", 21, 100);
      t.is(allowedCount(results.slice(0, 20)), 20);
      t.like(results[0], {
        allowed: true,
        headers: {
          "x-ratelimit-limit-requests": "20",
          "x-ratelimit-remaining-requests": "19",
          "x-ratelimit-reset-requests": "3s",
          "x-ratelimit-limit-tokens": "40000",
          "x-ratelimit-remaining-tokens": "39900",
          "x-ratelimit-reset-tokens": "0.15s",
        },
      });
      t.false("retry-after" in results[0]!.headers);
      t.deepEqual(results[20], {
        allowed: false,
        reason: "rate_limited",
        limit: "requests",
        retryAfterSeconds: 3,
        tooLarge: false,
        degraded: false,
        headers: {
          "x-ratelimit-limit-requests": "20",
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-requests": "60s",
          "x-ratelimit-limit-tokens": "40000",
          "x-ratelimit-remaining-tokens": "38000", // the refused request reserved nothing
          "x-ratelimit-reset-tokens": "3s",
          "retry-after": "3",
        },
      });
    },
  );

  scenario(
    "the window slides: no fresh burst at the minute boundary, capacity returns gradually",
    async (t, limiter, clock) => {
      await admitMany(limiter, "c1", 20);
      clock.advance(2_000); // now 12:01:01, past the boundary where a fixed window would refill
      t.like(await limiter.admit("c1", FREE, 0), { allowed: false, retryAfterSeconds: 1 });
      clock.advance(1_000); // one request's worth (60 s / 20) has returned
      t.is(allowedCount(await admitMany(limiter, "c1", 3)), 1);
      clock.advance(30_000); // half the window: half the requests return
      t.is(allowedCount(await admitMany(limiter, "c1", 15)), 10);
    },
  );

  scenario(
    "tokens: a reservation that does not fit is refused and spends nothing",
    async (t, limiter, clock) => {
      t.like(await limiter.admit("c1", FREE, 30_000), {
        allowed: true,
        headers: { "x-ratelimit-remaining-tokens": "10000", "x-ratelimit-reset-tokens": "45s" },
      });
      t.like(await limiter.admit("c1", FREE, 10_001), {
        allowed: false,
        reason: "rate_limited",
        limit: "tokens",
        retryAfterSeconds: 1,
        headers: {
          "x-ratelimit-remaining-requests": "19",
          "x-ratelimit-remaining-tokens": "10000",
          "retry-after": "1",
        },
      });
      t.like(await limiter.admit("c1", FREE, 10_000), {
        allowed: true,
        headers: { "x-ratelimit-remaining-tokens": "0" },
      });
      clock.advance(15_000); // a quarter of the window: 10,000 tokens return
      t.true((await limiter.admit("c1", FREE, 10_000)).allowed);
      t.false((await limiter.admit("c1", FREE, 1)).allowed);
    },
  );

  scenario(
    "a reservation larger than the whole token limit is refused as too large",
    async (t, limiter) => {
      t.like(await limiter.admit("c1", FREE, 40_001), {
        allowed: false,
        limit: "tokens",
        tooLarge: true,
      });
    },
  );

  scenario(
    "settle refunds unused tokens and charges usage beyond the reservation",
    async (t, limiter) => {
      const full = await limiter.admit("c1", FREE, 40_000);
      if (!full.allowed) return t.fail("refused");
      t.false((await limiter.admit("c1", FREE, 1)).allowed);
      await limiter.settle(full.reservation, 1_000);
      t.true((await limiter.admit("c1", FREE, 39_000)).allowed);
      t.false((await limiter.admit("c1", FREE, 1)).allowed);

      const small = await limiter.admit("c2", FREE, 1_000);
      if (!small.allowed) return t.fail("refused");
      await limiter.settle(small.reservation, 41_000); // the model used more than reserved
      t.like(await limiter.admit("c2", FREE, 1), {
        allowed: false,
        limit: "tokens",
        retryAfterSeconds: 2, // 1,001 tokens over, at 40,000 per minute
        headers: { "x-ratelimit-remaining-tokens": "0" },
      });
    },
  );

  scenario(
    "enterprise is unlimited and sends no headers; a custom limit applies per dimension",
    async (t, limiter) => {
      const unlimited = rateLimitsFor("enterprise");
      const results: Admission[] = [];
      for (let i = 0; i < 200; i++) results.push(await limiter.admit("ent", unlimited, 1_000_000));
      t.is(allowedCount(results), 200);
      t.deepEqual(results[199]!.headers, {});
      const custom = rateLimitsFor("enterprise", { requestsPerMinute: 5 });
      const limited: Admission[] = [];
      for (let i = 0; i < 6; i++) limited.push(await limiter.admit("ent2", custom, 1_000_000));
      t.is(allowedCount(limited), 5);
      t.deepEqual(Object.keys(limited[0]!.headers).sort(), [
        "x-ratelimit-limit-requests",
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
      ]);
    },
  );

  scenario("callers are limited independently", async (t, limiter) => {
    await admitMany(limiter, "a", 20);
    t.false((await limiter.admit("a", FREE, 0)).allowed);
    t.true((await limiter.admit("b", FREE, 0)).allowed);
  });
}
