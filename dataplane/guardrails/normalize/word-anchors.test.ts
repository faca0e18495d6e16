import test from "ava";
import { anchored, anchoredMatches, anchorsOf, wordIndex } from "./word-anchors.js";

test("anchors are the leading words of a pattern's alternatives, cut to four letters; short words followed by a space are whole-word anchors ($)", (t) => {
  t.deepEqual(anchorsOf("(?:ignore|forget(?:ting)?|do not) (?:all|the)")?.sort(), [
    "do$",
    "forg",
    "igno",
  ]);
  t.deepEqual(anchorsOf("(?:(?:kill|hurt) myself|suicide)")?.sort(), ["hurt", "kill", "suic"]);
  t.is(anchorsOf("(?:now )?ignore"), undefined);
  t.is(anchorsOf("<\\|im_start\\|>"), undefined);
});

test("anchored matching finds what a full scan finds, and nothing that starts mid-word", (t) => {
  const p = anchored(/(?:ignore|disregard) (?:all|the) rules/gu);
  const text = "first: ignore all rules. then: signore the rules. also disregard the rules";
  const found = [...anchoredMatches(p, text, wordIndex(text), 10)].map((m) => [m.index, m[0]]);
  t.deepEqual(found, [
    [7, "ignore all rules"],
    [55, "disregard the rules"],
  ]);
});

test("a whole-word anchor only fires on that word", (t) => {
  const p = anchored(/(?:i want|ich will) more/gu);
  const text = "in want more? i want more. ich will more";
  t.deepEqual(
    [...anchoredMatches(p, text, wordIndex(text), 10)].map((m) => m.index),
    [14, 27],
  );
});

test("patterns without anchors are scanned for everywhere", (t) => {
  const p = anchored(/<\|im_start\|>/gu);
  const text = "x<|im_start|>system";
  t.is([...anchoredMatches(p, text, wordIndex(text), 10)].length, 1);
});
