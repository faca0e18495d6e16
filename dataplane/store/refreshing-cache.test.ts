import test from "ava";
import { manualClock } from "../core/clock.js";
import { RefreshingCache } from "./refreshing-cache.js";

test("fresh values are served from memory; expired ones are reloaded", async (t) => {
  const clock = manualClock();
  const cache = new RefreshingCache<number>(clock, 1_000);
  let loads = 0;
  const load = async () => ++loads;
  t.is(await cache.get("a", load), 1);
  t.is(await cache.get("a", load), 1);
  clock.advance(1_001);
  t.is(await cache.get("a", load), 2);
});

test("when the store fails, the last value is served (up to maxStaleMs), never an error", async (t) => {
  const clock = manualClock();
  const cache = new RefreshingCache<string>(clock, 1_000, 10_000);
  await cache.get("a", async () => "v1");
  clock.advance(5_000);
  t.is(await cache.get("a", async () => Promise.reject(new Error("store down"))), "v1");
  clock.advance(6_000);
  await t.throwsAsync(
    cache.get("a", async () => Promise.reject(new Error("store down"))),
    { message: "store down" },
  );
  await t.throwsAsync(
    cache.get("b", async () => Promise.reject(new Error("store down"))),
    { message: "store down" },
  );
});

test("concurrent misses share one load, and invalidate forces a reload", async (t) => {
  const cache = new RefreshingCache<number>(manualClock(), 1_000);
  let loads = 0;
  const load = async () => ++loads;
  await Promise.all(Array.from({ length: 10 }, () => cache.get("a", load)));
  t.is(loads, 1);
  cache.invalidate("a");
  t.is(await cache.get("a", load), 2);
});
