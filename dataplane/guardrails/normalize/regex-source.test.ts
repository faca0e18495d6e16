import test from "ava";
import { leadingCharacters } from "./regex-source.js";

const leading = (source: string, flags = "gu"): string[] | undefined => {
  const chars = leadingCharacters(new RegExp(source, flags));
  return chars === undefined ? undefined : [...chars].sort();
};

test("the characters a match can start with are read from plain leading atoms, groups and classes", (t) => {
  t.deepEqual(leading("<\\|(?:im_start|im_end)\\|>"), ["<"]);
  t.deepEqual(leading("\\[/?inst\\]|<</?sys>>|\\[/?system\\]"), ["<", "["]);
  t.deepEqual(leading("(?:^|\\n)\\s*(?:system|admin)\\s*:"), ["\n"]);
  t.deepEqual(leading("(?:^|[.!?:\\n] ?)(?:stop|halt)"), ["\n", "!", ".", ":", "?"]);
  t.deepEqual(leading("#{1,6} x|-+y"), ["#", "-"]);
  t.deepEqual(leading("^x"), []);
});

test("a leading atom that may match nothing, or whose characters are not spelled out, gives no answer", (t) => {
  for (const source of [
    "\\s*x",
    "a?b",
    "a*b",
    "a{0,2}b",
    "(?:x)?y",
    "(?:x|)y",
    "[^a]b",
    "[a-z]b",
    "(?=a)a",
    "(?<!a)b",
    "(a)b",
    ".x",
    "\\p{L}x",
    "\\bx",
    "x|",
    "$",
  ])
    t.is(leading(source), undefined, source);
  t.is(leading("<x", "giu"), undefined);
  t.is(leading("^x", "gmu"), undefined);
});
