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

/** isWordCode of word-anchors.ts: what counts as a word character in folded text. */
const isWord = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7);

test("the word index holds, per pattern, every word start that begins with one of its anchors, by anchor rank", (t) => {
  const sources = [
    "(?:ignore|igloo|disregard|i want|do not|über|ärger|ж(?:ук)|жар) x",
    "(?:a b|ab|abcd|abce|é é) y",
    "(?:no way|now|not) z",
  ];
  const patterns = sources.map((s) => ({
    p: anchored(new RegExp(s, "gu")),
    anchors: anchorsOf(s)!,
  }));
  const words = [
    "ignore",
    "igloo",
    "ig",
    "i",
    "do",
    "dont",
    "über",
    "üb",
    "ärger",
    "жук",
    "жар",
    "ж",
  ];
  words.push(
    "a",
    "ab",
    "abc",
    "abcd",
    "abce",
    "é",
    "no",
    "now",
    "not",
    "nowhere",
    "x1",
    "1x",
    "wantx",
  );
  const separators = [" ", "  ", ".", "\n", "-", "×", "÷", "'", ""];
  let seed = 11;
  const next = (k: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % k;
  };
  for (let round = 0; round < 3000; round++) {
    let text = "";
    for (let w = next(12); w > 0; w--) text += words[next(words.length)]! + separators[next(9)]!;
    const index = wordIndex(text);
    for (const { p, anchors } of patterns) {
      const expected: number[] = [];
      anchors.forEach((anchor, rank) => {
        const whole = anchor.endsWith("$");
        const letters = whole ? anchor.slice(0, -1) : anchor;
        for (let i = 0; i < text.length; i++) {
          if (!isWord(text.charCodeAt(i)) || (i > 0 && isWord(text.charCodeAt(i - 1)))) continue;
          if (!text.startsWith(letters, i)) continue;
          if (whole && isWord(text.charCodeAt(i + letters.length))) continue;
          expected.push(rank * 2 ** 26 + i);
        }
      });
      const actual = [...(index.starts[p.pattern] ?? [])].sort((a, b) => a - b);
      t.deepEqual(
        actual,
        expected.sort((a, b) => a - b),
        text,
      );
    }
  }
});

test("starts are tried by anchor rank, then by offset, for short and long lists", (t) => {
  // Two anchors interleaved: every "beta" start (rank 1) comes after every "alpha" start (rank 0).
  const p = anchored(/(?:alpha|beta) \d+/gu);
  for (const words of [3, 20, 200]) {
    let text = "";
    for (let k = 0; k < words; k++) text += k % 2 === 0 ? `beta ${k} ` : `alpha ${k} `;
    const found = anchoredMatches(p, text, wordIndex(text), Infinity).map((m) => m[0]);
    const want = [
      ...[...text.matchAll(/alpha \d+/g)].map((m) => m[0]),
      ...[...text.matchAll(/beta \d+/g)].map((m) => m[0]),
    ];
    t.deepEqual(found, want);
  }
});
