import test from "ava";
import { reciprocalRankFusion, RRF_K } from "./reciprocal-rank-fusion.js";

test("an item high in both lists beats one that tops only one list", (t) => {
  const fused = reciprocalRankFusion([{ ids: ["a", "b", "c"] }, { ids: ["b", "d", "a"] }]);
  t.deepEqual(
    fused.map((f) => f.id),
    ["b", "a", "d", "c"],
  );
  const b = fused[0]!;
  t.deepEqual(b.ranks, [2, 1]);
  t.is(b.score, 1 / (RRF_K + 2) + 1 / (RRF_K + 1));
});

test("ranks absent from a list are null and add nothing", (t) => {
  const [only] = reciprocalRankFusion([{ ids: [] }, { ids: ["x"] }]);
  t.deepEqual(only, { id: "x", score: 1 / (RRF_K + 1), ranks: [null, 1] });
});

test("equal fused scores are ordered by best rank, then id, the same way every time", (t) => {
  // a: ranks 1 and 3; b: ranks 3 and 1; c: rank 2 and 2 -> c's sum is a bit smaller than a's (convexity)
  const fused = reciprocalRankFusion([{ ids: ["a", "c", "b"] }, { ids: ["b", "c", "a"] }]);
  t.deepEqual(
    fused.map((f) => f.id),
    ["a", "b", "c"],
  );
});

test("a duplicated id in one list counts once, at its best rank", (t) => {
  const [x] = reciprocalRankFusion([{ ids: ["x", "x"] }]);
  t.is(x?.score, 1 / (RRF_K + 1));
});
