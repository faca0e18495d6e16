import test from "ava";
import { periodBounds, periodKey } from "./budget-period.js";

const NOV_22 = Date.UTC(2026, 10, 22, 12, 30);

test("period keys are computed in UTC: month, ISO week, day", (t) => {
  t.is(periodKey("monthly", NOV_22), "2026-11");
  t.is(periodKey("daily", NOV_22), "2026-11-22");
  t.is(periodKey("weekly", NOV_22), "2026-W47");
  t.is(periodKey("monthly", Date.UTC(2026, 10, 30, 23, 59, 59, 999)), "2026-11");
  t.is(periodKey("monthly", Date.UTC(2026, 11, 1)), "2026-12");
});

test("ISO weeks belong to the year of their Thursday", (t) => {
  t.is(periodKey("weekly", Date.UTC(2027, 0, 1)), "2026-W53"); // a Friday
  t.is(periodKey("weekly", Date.UTC(2024, 11, 30)), "2025-W01"); // a Monday
  t.is(periodKey("weekly", Date.UTC(2026, 0, 1)), "2026-W01"); // a Thursday
});

test("period bounds: start inclusive, end exclusive", (t) => {
  t.deepEqual(periodBounds("monthly", NOV_22), {
    start: Date.UTC(2026, 10, 1),
    end: Date.UTC(2026, 11, 1),
  });
  t.deepEqual(periodBounds("weekly", NOV_22), {
    start: Date.UTC(2026, 10, 16),
    end: Date.UTC(2026, 10, 23),
  });
  t.deepEqual(periodBounds("daily", NOV_22), {
    start: Date.UTC(2026, 10, 22),
    end: Date.UTC(2026, 10, 23),
  });
});
