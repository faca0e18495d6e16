import test from "ava";
import { KeywordMatcher } from "./keyword-matcher.js";

const found = (keywords: string[], text: string, wholeWord = true) =>
  new KeywordMatcher(keywords, wholeWord).find(text).map((h) => text.slice(h.start, h.end));

test("matching ignores case and keeps the original offsets", (t) => {
  const text = "Ship PROJECT Apollo before Project apollo slips";
  const hits = new KeywordMatcher(["project apollo"], true).find(text);
  t.deepEqual(
    hits.map((h) => [h.start, h.end]),
    [
      [5, 19],
      [27, 41],
    ],
  );
});

test("whole words only when asked", (t) => {
  t.deepEqual(found(["cat"], "cat catalog concat cat."), ["cat", "cat"]);
  t.deepEqual(found(["cat"], "cat catalog concat", false), ["cat", "cat", "cat"]);
  t.deepEqual(found(["naïve"], "NAÏVE naïveté"), ["NAÏVE"]);
  t.deepEqual(found(["foo"], "foo_bar foo-bar"), ["foo"], "underscore is a word character");
});

test("overlapping keywords resolve leftmost-longest", (t) => {
  t.deepEqual(found(["he", "she", "hers", "his"], "ushers", false), ["shers".slice(0, 3)]);
  t.deepEqual(found(["new", "new york", "york"], "I love New York"), ["New York"]);
});

test("a thousand keywords are matched in one pass with the right indexes", (t) => {
  const keywords = Array.from({ length: 1000 }, (_, i) => `codeword${i}`);
  const matcher = new KeywordMatcher(keywords, true);
  const hits = matcher.find("say CODEWORD999 and codeword12 but not codeword12x");
  t.deepEqual(
    hits.map((h) => h.keyword),
    [999, 12],
  );
});
