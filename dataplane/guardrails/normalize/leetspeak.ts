/**
 * Leetspeak folding ("1gn0r3 4ll" -> "ignore all") and joining of letter-by-letter spelling
 * ("i g n o r e", "i.g.n.o.r.e" -> "ignore"). Both work on folded (lower-case) text.
 */
import type { FoldedText } from "./fold-characters.js";

const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l",
  "€": "e",
  "+": "t",
};

function isLetter(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "a" && ch <= "z";
}

/**
 * Replace leet characters that sit inside a word (a letter on at least one side, or between two
 * leet characters that touch a letter), so "2022" and "1+1" stay as they are. Length-preserving:
 * the folded text's origin map still applies.
 */
export function foldLeetspeak(text: string): string {
  const chars = text.split("");
  const isLeet = (i: number): boolean => chars[i] !== undefined && LEET[chars[i]!] !== undefined;
  const out = chars.slice();
  let i = 0;
  while (i < chars.length) {
    if (!isLeet(i)) {
      i++;
      continue;
    }
    let j = i;
    while (isLeet(j)) j++;
    // A run of leet characters [i, j) is folded when it touches a letter.
    if (isLetter(chars[i - 1]) || isLetter(chars[j])) {
      for (let k = i; k < j; k++) out[k] = LEET[chars[k]!]!;
    }
    i = j;
  }
  return out.join("");
}

const SPELLED_OUT = /(?<![\p{L}\p{N}])\p{L}(?:[ .\-_*·]\p{L}){3,}(?![\p{L}\p{N}])/gu;

/**
 * Join words spelled letter by letter. Returns a new folded text (with a composed origin map) or
 * undefined when nothing was spelled out.
 */
export function joinSpelledOut(folded: FoldedText): FoldedText | undefined {
  const { text } = folded;
  SPELLED_OUT.lastIndex = 0;
  if (!SPELLED_OUT.test(text)) return undefined;
  SPELLED_OUT.lastIndex = 0;
  let out = "";
  const origin: number[] = [];
  let last = 0;
  for (const m of text.matchAll(SPELLED_OUT)) {
    const start = m.index;
    for (let k = last; k < start; k++) {
      out += text[k];
      origin.push(folded.origin[k]!);
    }
    for (let k = start; k < start + m[0].length; k += 2) {
      out += text[k];
      origin.push(folded.origin[k]!);
    }
    last = start + m[0].length;
  }
  for (let k = last; k < text.length; k++) {
    out += text[k];
    origin.push(folded.origin[k]!);
  }
  origin.push(folded.inputLength);
  return { text: out, origin: Int32Array.from(origin), inputLength: folded.inputLength };
}
