import test from "ava";
import {
  deserializeSketch,
  mergeSerialized,
  mergeSketches,
  newLatencySketch,
  quantileMs,
  serializeSketch,
} from "./latency-sketch.js";

test("a sketch survives serialisation with its percentiles within 1%, in a few bytes per bin", (t) => {
  const s = newLatencySketch();
  for (let i = 1; i <= 1000; i++) s.accept(i);
  s.accept(0);
  const bytes = serializeSketch(s);
  const back = deserializeSketch(bytes);
  t.is(back.count, 1001);
  for (const q of [0.5, 0.95, 0.99]) {
    const exact = Math.round(q * 1000);
    t.true(Math.abs((quantileMs(back, q) ?? 0) - exact) <= exact * 0.02, `q${q}`);
  }
  const one = newLatencySketch();
  one.accept(12);
  t.true(serializeSketch(one).length <= 17);
});

test("merging serialised sketches equals sketching all values at once", (t) => {
  const a = newLatencySketch();
  const b = newLatencySketch();
  const all = newLatencySketch();
  for (let i = 0; i < 500; i++) {
    a.accept(10 + (i % 7));
    all.accept(10 + (i % 7));
    b.accept(200 + i);
    all.accept(200 + i);
  }
  const merged = mergeSerialized(serializeSketch(a), serializeSketch(b));
  const m = mergeSketches([merged, null]);
  t.is(m?.count, 1000);
  for (const q of [0.5, 0.95, 0.99]) t.is(quantileMs(m, q), quantileMs(all, q));
  t.is(quantileMs(undefined, 0.5), null);
  t.is(mergeSerialized(null, null), null);
});
