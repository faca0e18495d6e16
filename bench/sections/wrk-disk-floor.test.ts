import test from "ava";
import { diskFloorReport, measureDiskFloor, timeEach } from "./wrk-disk-floor.js";
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
  const measured = diskFloorReport({ appends: 1000, p50Ms: 0.3384, p99Ms: 2.185 });
  t.deepEqual(measured.ratios, {
    synced_append_under_c1_load_p50_ms: 0.3384,
    synced_append_under_c1_load_p99_ms: 2.185,
  });
  t.regex(measured.notes[0] ?? "", /p50 0\.338 ms, p99 2\.185 ms/);
});
