import test from "ava";
import { manualClock } from "../core/clock.js";
import { MemoryRateLimiter } from "./memory-rate-limiter.js";
import { rateLimitsFor } from "./rate-limits.js";

const FREE = rateLimitsFor("free");

test("memory: callers idle for a whole window are dropped, so memory does not grow with old callers", async (t) => {
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));
  const limiter = new MemoryRateLimiter({ clock });
  for (let i = 0; i < 500; i++) await limiter.admit(`c${i}`, FREE, 100);
  t.is(limiter.size, 500);
  clock.advance(60_000);
  await limiter.admit("fresh", FREE, 100);
  t.is(limiter.size, 1);
});

test("memory: a caller still draining is kept by the idle sweep", async (t) => {
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));
  const limiter = new MemoryRateLimiter({ clock });
  for (let i = 0; i < 20; i++) await limiter.admit("busy", FREE, 0);
  clock.advance(59_000);
  await limiter.admit("other", FREE, 0);
  t.is(limiter.size, 2);
  // 59 s returned 19 of the 20 requests (one per 3 s); the 20th is still counted.
  let allowed = 0;
  for (let i = 0; i < 20; i++) if ((await limiter.admit("busy", FREE, 0)).allowed) allowed++;
  t.is(allowed, 19);
});

test("memory: beyond maxKeys the least recently used caller is forgotten", async (t) => {
  const clock = manualClock(0);
  const limiter = new MemoryRateLimiter({ clock, maxKeys: 3 });
  const limits = { requestsPerMinute: 1, tokensPerMinute: null };
  for (const key of ["a", "b", "c"]) await limiter.admit(key, limits, 0);
  await limiter.admit("a", limits, 0); // refused, but touches a: b is now the oldest
  await limiter.admit("d", limits, 0);
  t.is(limiter.size, 3);
  t.false((await limiter.admit("a", limits, 0)).allowed); // kept
  t.true((await limiter.admit("b", limits, 0)).allowed); // forgotten, so fresh again
});

test("memory: a caller touched again and again stays the most recent, its count kept", async (t) => {
  const clock = manualClock(0);
  const limiter = new MemoryRateLimiter({ clock, maxKeys: 2 });
  const limits = { requestsPerMinute: 2, tokensPerMinute: null };
  await limiter.admit("a", limits, 0);
  t.true((await limiter.admit("b", limits, 0)).allowed);
  t.true((await limiter.admit("b", limits, 0)).allowed);
  t.false((await limiter.admit("b", limits, 0)).allowed, "b's count went on: its third is refused");
  await limiter.admit("c", limits, 0); // a is the oldest: forgotten
  t.is(limiter.size, 2);
  t.false((await limiter.admit("b", limits, 0)).allowed, "b kept");
  t.true((await limiter.admit("a", limits, 0)).allowed, "a forgotten, so fresh again");
});
