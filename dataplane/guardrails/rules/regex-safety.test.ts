import test from "ava";
import { checkRegexSafety, MAX_PATTERN_LENGTH } from "./regex-safety.js";

const refused = (pattern: string, flags = "") => {
  const result = checkRegexSafety(pattern, flags);
  return result.ok ? undefined : result.reason;
};

test("exponential patterns are refused: nested quantifiers", (t) => {
  t.regex(refused("(a+)+$") ?? "", /nested quantifiers/);
  t.regex(refused("(.*a){20}") ?? "", /nested quantifiers/);
  t.regex(refused("(x+x+)+y") ?? "", /nested quantifiers/);
  t.regex(refused("^(\\w+\\s?)+$") ?? "", /nested quantifiers/);
});

test("exponential patterns are refused: repeated alternatives that start alike", (t) => {
  t.regex(refused("(a|ab)*c") ?? "", /alternatives/);
  t.regex(refused("(\\w|\\d)+$") ?? "", /alternatives/);
  t.regex(refused("(?:Foo|fOO)+!", "i") ?? "", /alternatives/);
  t.is(refused("(?:Foo|fOO)+!"), undefined, "without i the branches differ");
  t.is(refused("(?:foo|bar)+!"), undefined);
});

test("overlapping unbounded quantifiers in a row are refused", (t) => {
  t.regex(refused("\\d+\\d+x") ?? "", /unbounded quantifiers/);
  t.regex(refused("\\d+-?\\d+") ?? "", /unbounded quantifiers/);
  t.regex(refused("x.*\\s*$") ?? "", /unbounded quantifiers/);
  t.regex(refused("\\d+(\\d+)x") ?? "", /unbounded quantifiers/);
  t.regex(
    refused("\\u0041+A+") ?? "",
    /unbounded quantifiers/,
    "\\u escapes are read as characters",
  );
  t.is(refused("[a-z]+\\d+"), undefined, "disjoint classes are fine");
  t.is(refused("\\p{L}+\\s+\\p{N}+", "u"), undefined);
});

test("backreferences, empty matches, bad syntax and long patterns are refused", (t) => {
  t.regex(refused("(a)\\1") ?? "", /backreferences/);
  t.regex(refused("(?<n>a)\\k<n>") ?? "", /backreferences/);
  t.regex(refused("a*") ?? "", /empty string/);
  t.regex(refused("(unclosed") ?? "", /not a valid regular expression/);
  t.regex(refused("a".repeat(MAX_PATTERN_LENGTH + 1)) ?? "", /longer than/);
  t.regex(refused("abc", "g") ?? "", /flags/);
});

test("ordinary rule patterns are accepted", (t) => {
  for (const pattern of [
    "\\b\\d{3}-\\d{2}-\\d{4}\\b",
    "secret[_-]?key\\s*[:=]\\s*\\w+",
    "project\\s+(apollo|gemini)",
    "MRN[:#\\s]*\\d{6,10}",
    "a+?b",
    "(?<=id=)\\d+",
    "^[A-Z]{2}\\d{6}$",
  ])
    t.is(refused(pattern, "i"), undefined, pattern);
});

test("optional parts and fixed counts inside quantifiers are accepted", (t) => {
  t.is(refused("\\b\\d{5}(?:-\\d{4})?\\b"), undefined);
  t.is(refused("(?:\\d{3}-)+\\d{4}"), undefined);
  t.is(refused("colou?r(?:s)?"), undefined);
  t.regex(refused("(a?a)+$") ?? "", /nested quantifiers/);
  t.regex(refused("(a{1,9}){1,9}$") ?? "", /nested quantifiers/);
});
