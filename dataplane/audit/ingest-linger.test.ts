import test from "ava";
import { lingerAfter } from "./ingest-linger.js";

const policy = { quietMs: 10, busyMs: 40, busyRecordsPerMs: 3 };

test("a lone caller's pace keeps the short wait, so each batch stays a short burst", (t) => {
  // about 1,500 requests a second: 18 records gathered over a 12 ms cycle
  t.is(lingerAfter(policy, 18, 12), 10);
  t.is(lingerAfter(policy, 1, 0.5), 10);
});

test("records arriving at the busy rate or faster get the long wait (larger batches)", (t) => {
  t.is(lingerAfter(policy, 36, 12), 40);
  t.is(lingerAfter(policy, 300, 45), 40);
});

test("the wait falls back to the short one as soon as traffic slows", (t) => {
  t.is(lingerAfter(policy, 300, 45), 40);
  t.is(lingerAfter(policy, 80, 45), 10);
});

test("a cycle of no measurable length, or a policy without a longer wait, keeps the short wait", (t) => {
  t.is(lingerAfter(policy, 50, 0), 10);
  t.is(lingerAfter(policy, 50, Number.NaN), 10);
  t.is(lingerAfter({ quietMs: 10, busyMs: 10, busyRecordsPerMs: 3 }, 500, 10), 10);
  t.is(lingerAfter({ quietMs: 0, busyMs: 0, busyRecordsPerMs: 3 }, 500, 10), 0);
});
