import test from "ava";
import { regexMatches } from "./regex-matches.js";
import { WORD_NUMBER, wordThenNumber } from "./word-then-number.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

function texts(pieces: string[], count: number, seed: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let s = "";
    const length = Math.floor(next() * 40);
    for (let i = 0; i < length; i++) s += pieces[Math.floor(next() * pieces.length)];
    return s;
  });
}

const expected = (text: string): { index: number; word: string; match: string }[] =>
  regexMatches(WORD_NUMBER, text).map((m) => ({ index: m.index, word: m[1] ?? "", match: m[0] }));

test("the word-and-number matches are the regex's, on ASCII text and on any other", (t) => {
  const ascii = [..."ab Z1234567 \t\n\r\f\v.,-#x", "12", "123456", "1234567", "St", "gade", "  "];
  const other = [...ascii, "é", "\u0301", "٣", "\u00a0", "\u2003", "😀", "Ж"];
  const cases = [
    "Søndergade 52, Kiannonkatu 98 and Main 1a. word 1234567 x 12b3 ab12 34 q\t7",
    ...texts(ascii, 100_000, 3),
    ...texts(other, 30_000, 4),
  ];
  for (const text of cases) t.deepEqual(wordThenNumber(text), expected(text), JSON.stringify(text));
});

test("WORD_NUMBER is the street-address detector's word-and-number pattern", (t) => {
  t.is(
    WORD_NUMBER.source,
    String.raw`(?<![\p{L}\p{N}])(\p{L}[\p{L}\p{M}]*)\s+\d{1,6}[A-Za-z]?(?![\p{L}\p{N}])`,
  );
  t.is(WORD_NUMBER.flags, "gu");
});
