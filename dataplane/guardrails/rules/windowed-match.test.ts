import test from "ava";
import { WindowedRegex } from "./windowed-match.js";

const spans = (pattern: string, text: string, flags = "", window = 64, maxMatch = 16) =>
  new WindowedRegex(pattern, flags, { window, maxMatch })
    .find(text)
    .map((s) => text.slice(s.start, s.end));

test("finds the same matches as a plain global scan when matches are short", (t) => {
  const text = Array.from({ length: 60 }, (_, i) => `item-${i} `).join("");
  const expected = [...text.matchAll(/item-\d+/g)].map((m) => m[0]);
  t.deepEqual(spans("item-\\d+", text), expected);
});

test("a match that straddles a window boundary is found once", (t) => {
  const text = `${"x".repeat(44)}CODE-1234${"x".repeat(100)}CODE-9`;
  t.deepEqual(spans("CODE-\\d+", text), ["CODE-1234", "CODE-9"]);
});

test("word boundaries and ^ see the text before the window", (t) => {
  const text = `${"a".repeat(48)}word ${"a".repeat(100)} word`; // "word" starts a window
  t.deepEqual(spans("\\bword\\b", text), ["word"]);
  t.deepEqual(spans("^a", text), ["a"]);
});

test("a match longer than the overlap is still reported, cut at its window", (t) => {
  const found = spans("Z+", `${"Z".repeat(200)}`);
  t.true(found.length >= 1);
  t.is(found.join("").length, 200);
});

test("$ matches only at the real end of the text, not at a window's end", (t) => {
  t.deepEqual(spans("x+$", `${"x".repeat(63)}${"y".repeat(100)}`), []);
  t.deepEqual(spans("y+$", `${"x".repeat(63)}${"y".repeat(10)}`), ["y".repeat(10)]);
  t.deepEqual(spans("end$", `${"a".repeat(61)}end\nmore text here`, "m"), ["end"]);
});

test("patterns that can match empty text do not loop", (t) => {
  t.deepEqual(spans("\\b", "ab cd"), []);
});
