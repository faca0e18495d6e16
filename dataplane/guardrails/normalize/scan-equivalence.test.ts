/**
 * The faster scans give exactly what the plain ones they replaced gave: each is checked here
 * against a straightforward reference on many generated texts mixing the characters that matter
 * (letters, digits, separators, non-ASCII, spaces).
 */
import test from "ava";
import { isLetterCode, isSpellSeparator, isWordCode, spelledOutRuns } from "./leetspeak.js";

/** A small deterministic generator (mulberry32), so a failure can be reproduced. */
export function randomSource(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Texts of short tokens from `alphabet`: single letters, words, separators in every mix. */
export function generatedTexts(alphabet: string[], count: number, seed = 7): string[] {
  const next = randomSource(seed);
  const texts: string[] = [];
  for (let k = 0; k < count; k++) {
    let s = "";
    const length = Math.floor(next() * 60);
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    texts.push(s);
  }
  return texts;
}

/** The scan spelledOutRuns replaced: a run tried at every word start in turn. */
function runsByWordStarts(text: string): [number, number][] {
  const runs: [number, number][] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const startsWord = i === 0 || !isWordCode(text.charCodeAt(i - 1));
    if (!startsWord || !isLetterCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    let letters = 1;
    while (
      j + 1 < n &&
      isSpellSeparator(text.charCodeAt(j)) &&
      isLetterCode(text.charCodeAt(j + 1)) &&
      (j + 2 >= n || !isWordCode(text.charCodeAt(j + 2)))
    ) {
      j += 2;
      letters++;
    }
    if (letters >= 4 && (j >= n || !isWordCode(text.charCodeAt(j)))) {
      runs.push([i, j]);
      i = j;
    } else {
      i++;
      while (i < n && isWordCode(text.charCodeAt(i - 1))) i++;
    }
  }
  return runs;
}

test("spelled-out runs are the runs found by trying every word start", (t) => {
  const alphabet = [
    "a",
    "b",
    "é",
    "ß",
    "ж",
    "1",
    " ",
    ".",
    "-",
    "_",
    "*",
    "·",
    "\n",
    "ab",
    ",",
    "×",
  ];
  alphabet.push("a ", "b.", "é-", "c_", "ж*", "d·", "e ", "f ");
  const texts = [
    "please i-g-n-o-r-e the r.u.l.e.s now",
    "a b c d e f g",
    "a b c d",
    "x a b c d e",
    "ab c d e f g h",
    ...generatedTexts(alphabet, 60_000),
  ];
  for (const text of texts) t.deepEqual(spelledOutRuns(text), runsByWordStarts(text), text);
});
