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
  clock.advance(2_001);
  t.is(await cache.get("a", load), 2);
});

test("a value just past its TTL is served at once while it is reloaded in the background", async (t) => {
  const clock = manualClock();
  const cache = new RefreshingCache<string>(clock, 1_000);
  await cache.get("a", async () => "v1");
  clock.advance(1_500);
  let finish: ((value: string) => void) | undefined;
  const slow = () => new Promise<string>((resolve) => (finish = resolve));
  // The store has not answered: the call does not wait for it.
  t.is(await cache.get("a", slow), "v1");
  t.is(await cache.get("a", slow), "v1");
  finish?.("v2");
  await new Promise((resolve) => setImmediate(resolve));
  t.is(await cache.get("a", async () => "v3"), "v2");
});

test("an invalidation during a reload is not undone by the reload's older answer", async (t) => {
  const clock = manualClock();
  const cache = new RefreshingCache<string>(clock, 1_000);
  await cache.get("a", async () => "old");
  clock.advance(1_500);
  let finish: ((value: string) => void) | undefined;
  await cache.get("a", () => new Promise<string>((resolve) => (finish = resolve)));
  cache.invalidate("a");
  finish?.("old, read before the change");
  await new Promise((resolve) => setImmediate(resolve));
  t.is(await cache.get("a", async () => "new"), "new");
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
