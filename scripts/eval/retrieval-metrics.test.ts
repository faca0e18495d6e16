import test from "ava";
import { mean, mrrAt, ndcgAt, recallAt } from "./retrieval-metrics.js";

const one = new Map([["d1", 1]]);

test("nDCG@10 is 1 with the relevant document first and 1/log2(3) with it second", (t) => {
  t.is(ndcgAt(10, ["d1", "x", "y"], one), 1);
  t.is(ndcgAt(10, ["x", "d1"], one), 1 / Math.log2(3));
  t.is(ndcgAt(10, ["x", "y"], one), 0);
});

test("nDCG counts only the top k and normalises by the ideal order of graded judgements", (t) => {
  const ranked = ["a", "b", "c"];
  t.is(ndcgAt(1, ["x", "d1"], one), 0);
  const graded = new Map([
    ["a", 1],
    ["b", 2],
  ]);
  const dcg = 1 / Math.log2(2) + 3 / Math.log2(3);
  const idcg = 3 / Math.log2(2) + 1 / Math.log2(3);
  t.true(Math.abs(ndcgAt(10, ranked, graded) - dcg / idcg) < 1e-12);
});

test("recall@k and MRR@k", (t) => {
  const two = new Map([
    ["a", 1],
    ["b", 1],
  ]);
  t.is(recallAt(10, ["a", "x"], two), 0.5);
  t.is(recallAt(1, ["x", "a", "b"], two), 0);
  t.is(mrrAt(10, ["x", "y", "b"], two), 1 / 3);
  t.is(mrrAt(2, ["x", "y", "b"], two), 0);
  t.is(mean([1, 0, 0.5]), 0.5);
  t.is(mean([]), 0);
});
