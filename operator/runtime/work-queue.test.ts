import test from "ava";
import { ManualClock } from "./clock.js";
import { WorkQueue } from "./work-queue.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test("events for one key are coalesced while queued and run again once after the running handler", async (t) => {
  const clock = new ManualClock();
  const runs: string[] = [];
  const gate = deferred();
  let active = 0;
  let maxActive = 0;
  const queue = new WorkQueue({
    clock,
    handler: async (key) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      runs.push(key);
      if (runs.length === 1) await gate.promise;
      active -= 1;
    },
  });
  queue.resume();
  queue.add("Model/ns/a");
  queue.add("Model/ns/a"); // arrives while running: one re-run afterwards
  queue.add("Model/ns/a");
  gate.resolve();
  await queue.idle();
  t.deepEqual(runs, ["Model/ns/a", "Model/ns/a"]);
  t.is(maxActive, 1);
});

test("different keys run concurrently up to the limit", async (t) => {
  const clock = new ManualClock();
  const gate = deferred();
  let active = 0;
  let maxActive = 0;
  const queue = new WorkQueue({
    clock,
    concurrency: 2,
    handler: async () => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      await gate.promise;
      active -= 1;
    },
  });
  queue.resume();
  for (const key of ["a", "b", "c"]) queue.add(key);
  await Promise.resolve();
  gate.resolve();
  await queue.idle();
  t.is(maxActive, 2);
});

test("a failing key is retried with jittered exponential backoff and the count resets on success", async (t) => {
  const clock = new ManualClock();
  const delays: number[] = [];
  let failures = 3;
  const queue = new WorkQueue({
    clock,
    backoff: { baseMs: 100, maxMs: 10_000, jitter: 0.5 },
    random: () => 0,
    onError: (_key, _err, _attempt, retryInMs) => delays.push(retryInMs),
    handler: async () => {
      if (failures-- > 0) throw new Error("boom");
    },
  });
  queue.resume();
  queue.add("k");
  for (let i = 0; i < 3; i++) {
    await queue.idle();
    clock.advance(delays[i] ?? 0);
  }
  await queue.idle();
  t.deepEqual(delays, [100, 200, 400]);
  t.is(queue.retries("k"), 0);
});

test("jitter shortens the delay by at most the jitter fraction", async (t) => {
  const clock = new ManualClock();
  const delays: number[] = [];
  const queue = new WorkQueue({
    clock,
    backoff: { baseMs: 1000, maxMs: 10_000, jitter: 0.5 },
    random: () => 0.999,
    onError: (_k, _e, _a, ms) => delays.push(ms),
    handler: async () => {
      throw new Error("boom");
    },
  });
  queue.resume();
  queue.add("k");
  await queue.idle();
  const delay = delays[0] ?? 0;
  t.true(delay >= 500 && delay < 1000);
  await queue.shutdown();
});

test("a paused queue (not the leader) collects keys and runs them on resume", async (t) => {
  const clock = new ManualClock();
  const runs: string[] = [];
  const queue = new WorkQueue({ clock, handler: async (key) => void runs.push(key) });
  queue.add("a");
  queue.add("b");
  await queue.idle();
  t.deepEqual(runs, []);
  queue.resume();
  await queue.idle();
  t.deepEqual(runs, ["a", "b"]);
});

test("requeueAfterMs runs the key again when the time comes", async (t) => {
  const clock = new ManualClock();
  let runs = 0;
  const queue = new WorkQueue({
    clock,
    handler: async () => (++runs === 1 ? { requeueAfterMs: 5000 } : undefined),
  });
  queue.resume();
  queue.add("k");
  await queue.idle();
  clock.advance(4999);
  await queue.idle();
  t.is(runs, 1);
  clock.advance(1);
  await queue.idle();
  t.is(runs, 2);
});
