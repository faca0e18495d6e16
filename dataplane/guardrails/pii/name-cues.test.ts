/**
 * The cue look-up before a name gives what the plain regex calls it replaced gave, on generated
 * windows of words, punctuation and white space (ASCII and not).
 */
import test from "ava";
import { PREVIOUS_WORDS, previousWords, withoutTrailingCuePunctuation } from "./name-cues.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

const PIECES = [
  ..."ab'x:?,.-; \n\t",
  "name",
  "is",
  "mr.",
  "i'm",
  "é",
  "\u0301",
  "\u00a0",
  "\u2003",
  "😀",
  "1",
  "  ",
];

function windows(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let s = "";
    const length = Math.floor(next() * 16);
    for (let i = 0; i < length; i++) s += PIECES[Math.floor(next() * PIECES.length)];
    return s;
  });
}

test("the words before a name are the plain regex's match, groups included", (t) => {
  let matched = 0;
  for (const before of ["my name is ", "said ", "x", "", "  ", ...windows(200_000, 21)]) {
    const expected = PREVIOUS_WORDS.exec(before);
    const found = previousWords(before);
    t.deepEqual(
      found === null ? null : [...found, found.index],
      expected === null ? null : [...expected, expected.index],
      JSON.stringify(before),
    );
    if (expected !== null) matched++;
  }
  t.true(matched > 20_000);
});

test("trailing cue punctuation is dropped as the regex replacement dropped it", (t) => {
  for (const word of ["name:", "name", "", ":", "a?", "b,", "c.", "d-", "e;", "f..", "ж-"])
    t.is(withoutTrailingCuePunctuation(word), word.replace(/[:?,.-]$/, ""), word);
});
