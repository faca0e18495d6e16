import test from "ava";
import { regexMatches } from "./regex-matches.js";

const simplify = (ms: Iterable<RegExpExecArray>) =>
  [...ms].map((m) => ({ index: m.index, text: m[0], groups: [...m], indices: m.indices }));

test("regexMatches finds what matchAll finds, empty matches and surrogate pairs included", (t) => {
  const cases: [RegExp, string][] = [
    [/\d+/g, "a1 22 333 x"],
    [/(?<![\p{L}\p{N}])(\p{L}+)\s+\d+/gu, "Rue 12, Søndergade 52 and 😀 Straße 7"],
    [/x*/g, "axxbx"],
    [/x*/gu, "a😀xx😀"],
    [/(a)|(b)/dgi, "AbcaB"],
    [/nothing/g, "text"],
  ];
  for (const [regex, text] of cases)
    t.deepEqual(simplify(regexMatches(regex, text)), simplify(text.matchAll(regex)), regex.source);
});

test("regexMatches starts from the beginning whatever lastIndex was", (t) => {
  const regex = /\d/g;
  regex.lastIndex = 3;
  t.is(regexMatches(regex, "1234").length, 4);
  t.throws(() => regexMatches(/\d/, "1"), { instanceOf: TypeError });
});
