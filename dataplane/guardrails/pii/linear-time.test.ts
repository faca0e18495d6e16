import test from "ava";
import { detectPii } from "./detect.js";

/**
 * Pathological inputs for regex engines: long runs of the characters the patterns are built from.
 * With catastrophically backtracking patterns these would not finish within the test timeout; here
 * each must complete with sane spans. No wall-clock assertions: the second test checks that a
 * prompt repeated 1000 times (68 KB) yields exactly 1000 times the matches at the same offsets.
 */
const PATHOLOGICAL = [
  "1".repeat(50_000),
  "1 ".repeat(25_000),
  "1-".repeat(25_000),
  "a".repeat(50_000),
  "a@".repeat(25_000),
  "@a.".repeat(16_000),
  "A1".repeat(25_000),
  "eyJ".repeat(16_000),
  "eyJa.".repeat(10_000),
  ":".repeat(50_000),
  "1.".repeat(25_000),
  "ab:".repeat(16_000),
  "GB82 ".repeat(10_000),
  "password=".repeat(5_000),
  "-----BEGIN RSA PRIVATE KEY-----".repeat(1_500),
  "+(1) ".repeat(10_000),
  "Aa ".repeat(16_000),
  "1 Main St ".repeat(5_000),
  "Mr. Aa ".repeat(7_000),
  "Aa Bb 12 ".repeat(5_500),
  "A1-b2.C3".repeat(6_000),
  "Straße 1".repeat(6_000),
];

for (const [i, input] of PATHOLOGICAL.entries()) {
  test(`pathological input ${i} (${JSON.stringify(input.slice(0, 12))}... x${input.length}) finishes`, (t) => {
    const matches = detectPii(input);
    for (const m of matches) t.true(m.start >= 0 && m.end <= input.length && m.start < m.end);
    t.pass();
  });
}

test("matches found in a prompt are found at the same place when the prompt is repeated 1000 times", (t) => {
  const prompt = "Contact jane@example.com, card 4111 1111 1111 1111, from 10.0.0.1. ";
  const single = detectPii(prompt);
  const repeated = detectPii(prompt.repeat(1000));
  t.is(repeated.length, single.length * 1000);
  t.deepEqual(
    repeated.slice(-single.length).map((m) => m.start - prompt.length * 999),
    single.map((m) => m.start),
  );
});
