import { performance } from "node:perf_hooks";
import test from "ava";
import { awaitActively } from "./active-wait.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Share of the time `run` took that the event loop was not asleep waiting for events. */
async function busyShare(run: () => Promise<unknown>): Promise<number> {
  const start = performance.eventLoopUtilization();
  await run();
  return performance.eventLoopUtilization(start).utilization;
}

test.serial("it resolves with the promise's value and rejects with its error", async (t) => {
  t.is(await awaitActively(Promise.resolve(42), 5), 42);
  await t.throwsAsync(awaitActively(Promise.reject(new Error("disk full")), 5), {
    message: "disk full",
  });
});

test.serial("other callbacks run while it waits: it never blocks the event loop", async (t) => {
  let timerRan = false;
  setTimeout(() => (timerRan = true), 1);
  t.is(
    await awaitActively(
      sleep(20).then(() => "done"),
      50,
    ),
    "done",
  );
  t.true(timerRan);
});

// The sleeps that should leave the loop asleep are long (200 ms): on a loaded machine the process
// can be descheduled for several milliseconds while its loop is awake, which counts as busy, and
// a 30 ms sleep once read as more than half busy in a full test run.
test.serial("while it waits the event loop does not sleep; a plain await lets it", async (t) => {
  t.true((await busyShare(() => awaitActively(sleep(30), 100))) > 0.8);
  t.true((await busyShare(() => awaitActively(sleep(200), 0))) < 0.5);
});

test.serial("it lets the loop sleep again once the promise settles, or after maxMs", async (t) => {
  await awaitActively(sleep(5), 100);
  t.true((await busyShare(() => sleep(200))) < 0.5);
  // Still pending after maxMs (10): most of the 200 ms wait is asleep.
  t.true((await busyShare(() => awaitActively(sleep(200), 10))) < 0.5);
});
