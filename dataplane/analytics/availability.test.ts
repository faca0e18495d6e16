import test from "ava";
import { availabilityPercent, classifyCall, errorBudget, SLA_TIERS } from "./availability.js";

test("5xx answers, upstream errors and broken streams are failures; 4xx refusals and client aborts are not", (t) => {
  t.is(classifyCall("completed", 200), "success");
  t.is(classifyCall("upstream_error", 502), "failure");
  t.is(classifyCall("stream_failed", 200), "failure");
  t.is(classifyCall("refused", 503), "failure");
  t.is(classifyCall("refused", 422), "refusal");
  t.is(classifyCall("blocked", 400), "refusal");
  t.is(classifyCall("rate_limited", 429), "refusal");
  t.is(classifyCall("client_aborted", undefined), "aborted");
});

test("availability counts calls less refusals; none counted is null, not 100", (t) => {
  // 1000 calls: 950 served, 40 refused (4xx), 10 failed -> 950 / 960
  t.is(availabilityPercent(1000, 10, 40), 98.9583);
  t.is(availabilityPercent(5, 0, 5), null);
  t.is(availabilityPercent(0, 0, 0), null);
  t.is(availabilityPercent(200, 0, 0), 100);
});

test("error budget per SLA tier on hand-made data: consumed, remaining and met", (t) => {
  // 100,000 counted calls with 75 failures (99.925% available).
  const tiers = SLA_TIERS.map((tier) => errorBudget(100_000, 75, tier));
  t.deepEqual(
    tiers.map((x) => [x.tier, x.allowed_failures, x.budget_consumed_percent, x.met]),
    [
      ["99.0", 1000, 7.5, true],
      ["99.5", 500, 15, true],
      ["99.9", 100, 75, true],
      ["99.95", 50, 150, false],
    ],
  );
  t.is(tiers[2]?.budget_remaining_percent, 25);
  t.is(tiers[3]?.budget_remaining_percent, 0);
  const idle = errorBudget(0, 0, "99.9");
  t.is(idle.budget_consumed_percent, 0);
  t.is(idle.budget_remaining_percent, 100);
  t.true(idle.met);
  t.is(errorBudget(0, 3, "99.9").budget_consumed_percent, 100);
});
