/**
 * rot13, and whether a text is rot13 (decode-payloads.ts tries it as one more decoding): it names
 * rot13 or a Caesar cipher, or its rot13 has clearly more common words than the text itself.
 */
const NAMES_ROT13 = /\brot-?13\b|\bcaesar\b/i;

export function rot13(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + 13) % 26) + 97);
    else if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + 13) % 26) + 65);
    else out += s[i];
  }
  return out;
}

const COMMON_WORDS =
  /\b(?:the|and|you|your|to|of|is|are|all|what|this|that|ignore|instructions|previous|system|prompt|tell|me|now|der|die|und|ist|du)\b/g;

/** Matches of `words` in `s`, counted up to `cap` (the count when there are fewer). */
function commonWordCount(s: string, words = COMMON_WORDS, cap = Infinity): number {
  // Counted as s.match(words) would list them (no word can match empty).
  let count = 0;
  words.lastIndex = 0;
  while (count < cap && words.exec(s) !== null) count++;
  words.lastIndex = 0;
  return count;
}

/** Common words in a prefix that already reads as words: it is not rot13. */
const PLAIN_TEXT_WORDS = 6;

/**
 * The common words rot13-encoded, in the same order: on ASCII text, counting these in the text
 * counts the common words of its rot13 without building it (rot13 maps letters to letters, so word
 * boundaries stay where they are).
 */
const ROT13_COMMON_WORDS = new RegExp(
  COMMON_WORDS.source
    .split("\\b")
    .map((part) => rot13(part))
    .join("\\b"),
  "g",
);

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The text after rot13 (its first `maxChars` characters), when it reads better that way: it names
 * rot13 / a Caesar cipher, or its rot13 has clearly more common words than the text itself
 * (checked on a capped prefix).
 */
export function rot13Variant(text: string, maxChars: number): string | undefined {
  const prefix = text.slice(0, 1024);
  const named = NAMES_ROT13.test(prefix);
  if (!named) {
    // Text that already reads as words is not rot13 (and flipping it is the costly part).
    const lower = prefix.toLowerCase();
    // Counting stops at PLAIN_TEXT_WORDS: the decision is the same, and ordinary text gets there
    // within its first words instead of being scanned to the end of the prefix.
    const plain = commonWordCount(lower, COMMON_WORDS, PLAIN_TEXT_WORDS);
    if (plain >= PLAIN_TEXT_WORDS) return undefined;
    const flippedCount = isAscii(prefix)
      ? commonWordCount(lower, ROT13_COMMON_WORDS)
      : commonWordCount(rot13(prefix).toLowerCase());
    if (flippedCount - plain < 3) return undefined;
  }
  return rot13(text.slice(0, maxChars));
}
