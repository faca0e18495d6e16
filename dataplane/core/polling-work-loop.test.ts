import test from "ava";
import { PollingWorkLoop, renewLease } from "./polling-work-loop.js";

test("a polling work loop works while there is work, sleeps when idle or after a failed round, wakes on nudge, stops", async (t) => {
  let queue = 3;
  let calls = 0;
  const errors: unknown[] = [];
  const loop = new PollingWorkLoop(
    async () => {
      calls += 1;
      if (calls === 1) throw new Error("one bad round");
      if (queue === 0) return false;
      queue -= 1;
      return true;
    },
    60_000,
    (err) => errors.push(err),
  );
  loop.start();
  // The failed round counts as idle: a 60 s poll would not come within the test.
  await new Promise((r) => setTimeout(r, 50));
  t.is(errors.length, 1);
  t.is(queue, 3);
  loop.nudge();
  await new Promise((r) => setTimeout(r, 50));
  t.is(queue, 0, "after a nudge it works until there is no work");
  const idleCalls = calls;
  queue = 1;
  loop.nudge();
  await new Promise((r) => setTimeout(r, 50));
  t.is(queue, 0, "a nudge ends the idle sleep");
  t.true(calls > idleCalls);
  await loop.stop();
  t.true(loop.stopping);
  const started = Date.now();
  await loop.sleep(60_000);
  t.true(Date.now() - started < 1_000, "sleep returns at once once stopped");
});

test("a renewed lease renews until stopped and remembers a lost renewal", async (t) => {
  let renewals = 0;
  const lease = renewLease(750, async () => {
    renewals += 1;
    return renewals < 2;
  });
  await new Promise((r) => setTimeout(r, 700));
  t.true(lease.lost, "the second renewal failed");
  lease.stop();
  const after = renewals;
  await new Promise((r) => setTimeout(r, 400));
  t.is(renewals, after, "no renewal after stop");
});
