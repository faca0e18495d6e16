import test from "ava";
import { diskFloorReport, idleFor, measureDiskFloor, timeEach } from "./wrk-disk-floor.js";
import type { WrkTarget } from "./wrk-targets.js";

test("timeEach awaits every call in turn and times each one", async (t) => {
  let running = 0;
  let calls = 0;
  const times = await timeEach(5, async () => {
    running += 1;
    t.is(running, 1, "one call at a time");
    calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 2));
    running -= 1;
  });
  t.is(calls, 5);
  t.is(times.length, 5);
  for (const ms of times) t.true(ms >= 1, `each call's time covers its wait (${ms} ms)`);
});

test("timeEach with an idle spell before each call leaves that spell out of the call's time", async (t) => {
  let last = 0;
  const gaps: number[] = [];
  const times = await timeEach(
    4,
    async () => {
      gaps.push(performance.now() - last);
      await Promise.resolve();
      last = performance.now();
    },
    idleFor(30),
  );
  t.is(times.length, 4);
  for (const [i, gap] of gaps.slice(1).entries()) {
    t.true(gap >= 29, `a pause of about 30 ms before call ${i + 2} (${gap} ms)`);
    t.true((times[i + 1] ?? gap) < gap, `its time leaves the pause out (${times[i + 1]} ms)`);
  }
});

test("the probe reports nothing when its load could not run (no wrk), rather than an idle disk's numbers", async (t) => {
  const proxy: WrkTarget = {
    name: "baseline",
    base: "http://127.0.0.1:9/v1",
    headers: {},
    stats: undefined,
  };
  t.is(await measureDiskFloor("/nonexistent/wrk", proxy, 5), undefined);
});

test("the report says when the disk was not measured, and gives p50 and p99 when it was", (t) => {
  const missing = diskFloorReport(undefined);
  t.deepEqual(missing.ratios, {});
  t.regex(missing.notes[0] ?? "", /could not be measured/);
  const measured = diskFloorReport({
    appends: 1000,
    p50Ms: 0.3384,
    p99Ms: 2.185,
    paced: { p50Ms: 0.7012, p99Ms: 1.5 },
  });
  t.deepEqual(measured.ratios, {
    synced_append_under_c1_load_p50_ms: 0.3384,
    synced_append_under_c1_load_p99_ms: 2.185,
    synced_append_paced_under_c1_load_p50_ms: 0.7012,
    synced_append_paced_under_c1_load_p99_ms: 1.5,
  });
  t.regex(measured.notes[0] ?? "", /in a row .*p50 0\.338 ms, p99 2\.185 ms/);
  t.regex(measured.notes[0] ?? "", /1 ms idle before each.*p50 0\.701 ms, p99 1\.500 ms/);
});
