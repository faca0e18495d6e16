import test from "ava";
import { timeOrderedHex } from "./time-ordered-id.js";

// Serial, in this order: the later tests move the module's clock ahead of the real one.
const VERSION_7 = /^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/;
const millisOf = (hex: string): number => parseInt(hex.slice(0, 12), 16);

test.serial("ids are version 7 UUIDs whose first 48 bits are the time in milliseconds", (t) => {
  const before = Date.now();
  const hex = timeOrderedHex();
  const after = Date.now();
  t.regex(hex, VERSION_7);
  t.true(millisOf(hex) >= before && millisOf(hex) <= after);
});

test.serial(
  "ids made one after another sort in the order they were made, many to a millisecond",
  (t) => {
    const ids = Array.from({ length: 5000 }, () => timeOrderedHex());
    for (const hex of ids) t.regex(hex, VERSION_7);
    t.deepEqual([...ids].sort(), ids);
    t.is(new Set(ids).size, ids.length);
  },
);

test.serial(
  "more ids in one millisecond than the counter holds still sort, the time running ahead",
  (t) => {
    const frozen = Date.now() + 60_000;
    const ids = Array.from({ length: 10_000 }, () => timeOrderedHex(frozen));
    t.deepEqual([...ids].sort(), ids);
    t.is(new Set(ids).size, ids.length);
    t.is(millisOf(ids[0] as string), frozen);
    t.true(millisOf(ids.at(-1) as string) > frozen);
  },
);

test.serial("a clock that steps back does not make an id sort before the last one", (t) => {
  const first = timeOrderedHex(Date.now() + 120_000);
  const second = timeOrderedHex(Date.now());
  t.true(second > first);
});

test.serial("the bits after the time and counter are random: no two ids share them", (t) => {
  const tails = new Set(Array.from({ length: 1000 }, () => timeOrderedHex().slice(17)));
  t.is(tails.size, 1000);
});
