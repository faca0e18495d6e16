/**
 * Cue patterns that the PII detectors run over a whole text (or over every window around a digit
 * run), with the word boundary before their first word spelled as the lookbehind it stands for.
 *
 * Under the `i` and `u` flags together, V8 compiles `\b` into a choice of two lookarounds (the
 * word characters then include U+017F and U+212A, which fold to "s" and "k"). Node 22's V8 then
 * tries the whole pattern at every position of the text: 35-45 us over a 4 KB prompt for NAME_CUE
 * alone, against 1.0-1.5 us on Node 24 (docs/benchmarks.md, "Issue 13, twenty-seventh pass").
 * Before a word character, `\b` means "the character before is not a word character", and under
 * `iu` the class [0-9A-Z_a-z] matches exactly the word characters of `\b` (U+017F and U+212A
 * included, by case folding), so `(?<![0-9A-Z_a-z])` matches the same strings at the same places;
 * it runs in about 1 us on Node 22 and 24 alike. word-cue-patterns.test.ts checks the equivalence
 * against the `\b` spellings.
 */

/** `\b` before a word character, under the `i` and `u` flags (see above). */
export const ASCII_WORD_START = "(?<![0-9A-Z_a-z])";

/** "my name is", "name:", "call me": a strong cue that a (possibly lower-case) name follows. */
export const NAME_CUE = new RegExp(
  `${ASCII_WORD_START}(?:name\\s+is|name:|calls?\\s+me)\\s+`,
  "giu",
);

/** "(the) corner of Fifth Avenue and Main Street": an address without a house number. */
export const CORNER_OF = new RegExp(
  `${ASCII_WORD_START}(?:the\\s+)?corner\\s+of\\s+[^.?!\\n]{3,60}?\\s+and\\s+[^.?!\\n,]{3,40}?(?=[.?!\\n,]|$)`,
  "giu",
);
