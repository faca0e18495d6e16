import test from "ava";
import { featureCounts, MAX_FEATURE_CHARS } from "./hashed-features.js";
import { seededRandom } from "../../../test/support/seeded-random.js";

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHAR_SEED = 0xc2b2ae35;

/** The counting as first written (one step per character, the end as one more space). */
function referenceCounts(text: string, dims: number): { indices: number[]; counts: number[] } {
  const counts = new Map<number, number>();
  const count = (b: number): void => {
    counts.set(b, (counts.get(b) ?? 0) + 1);
  };
  const mask = dims - 1;
  let prevWord = 0;
  let word = FNV_OFFSET;
  let inWord = false;
  let [c1, c2, c3] = [32, 32, 32];
  const n = Math.min(text.length, MAX_FEATURE_CHARS);
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    const wordChar = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c >= 0xc0;
    if (wordChar) {
      word = Math.imul(word ^ c, FNV_PRIME);
      inWord = true;
    } else if (inWord) {
      const w = Math.imul(word ^ WORD_SEED, FNV_PRIME);
      count(w & mask);
      if (prevWord !== 0)
        count(Math.imul(Math.imul(prevWord ^ w, FNV_PRIME) ^ BIGRAM_SEED, FNV_PRIME) & mask);
      prevWord = w;
      word = FNV_OFFSET;
      inWord = false;
    }
    const cc = wordChar ? c : 32;
    if (cc !== 32 || c3 !== 32) {
      const h = Math.imul(
        Math.imul(Math.imul(CHAR_SEED ^ c1, FNV_PRIME) ^ c2, FNV_PRIME) ^ c3,
        FNV_PRIME,
      );
      count(Math.imul(h ^ cc, FNV_PRIME) & mask);
    }
    [c1, c2, c3] = [c2, c3, cc];
  }
  const indices = [...counts.keys()];
  return { indices, counts: indices.map((b) => counts.get(b)!) };
}

const PIECES = [
  "the",
  "a",
  "report",
  "x",
  "42",
  "0132",
  " ",
  "  ",
  "\n",
  ".",
  ",",
  "-",
  "@",
  "[",
  "_",
  "é",
  "\u00bf",
  "\u00c0",
  "\u00d7",
  "😀",
  "\u0301",
  "Ab",
  "ß",
  "\t",
  "'",
  "İ",
  "9a",
  "zz",
];

function generated(next: () => number): string {
  let text = "";
  const pieces = Math.floor(next() * 60);
  for (let k = 0; k < pieces; k++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

test("featureCounts counts and orders buckets as the per-character loop", (t) => {
  const next = seededRandom(13);
  const texts = ["", " ", "a", "ab cd", "x  y", "word.", ".word", "a b c d e f"];
  for (let k = 0; k < 20_000; k++) texts.push(generated(next));
  for (const text of texts)
    for (const dims of [1 << 16, 1 << 12]) {
      const got = featureCounts(text, dims);
      const want = referenceCounts(text, dims);
      const same =
        JSON.stringify(Array.from(got.indices)) === JSON.stringify(want.indices) &&
        JSON.stringify(Array.from(got.counts)) === JSON.stringify(want.counts);
      if (!same) t.fail(JSON.stringify(text));
    }
  t.pass();
});

test("featureCounts reads only the first MAX_FEATURE_CHARS characters", (t) => {
  const text = "alpha beta gamma ".repeat(1100);
  t.true(text.length > MAX_FEATURE_CHARS);
  const got = featureCounts(text, 1 << 16);
  const want = referenceCounts(text, 1 << 16);
  t.deepEqual(Array.from(got.indices), want.indices);
  t.deepEqual(Array.from(got.counts), want.counts);
});
