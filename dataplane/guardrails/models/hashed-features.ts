/**
 * Hashed bag-of-n-grams features for the small linear models: word unigrams and bigrams plus
 * character 4-grams, hashed into `dims` buckets (a power of two), log-scaled and L2-normalised.
 * The same function serves training (scripts/train-guardrail-models.ts) and scoring.
 */

export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD_SEED = 0x9e3779b1;
const BIGRAM_SEED = 0x85ebca6b;
const CHAR_SEED = 0xc2b2ae35;

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c >= 0xc0;
}

function mix(h: number, v: number): number {
  return Math.imul(h ^ v, FNV_PRIME);
}

/** Longest text the features look at; a prompt's opening carries its intent. */
export const MAX_FEATURE_CHARS = 16384;

let scratch = new Float32Array(0);

export function hashedFeatures(foldedText: string, dims: number): SparseVector {
  if (scratch.length !== dims) scratch = new Float32Array(dims);
  const mask = dims - 1;
  const touched: number[] = [];
  const bump = (h: number): void => {
    const i = (h >>> 0) & mask;
    if (scratch[i] === 0) touched.push(i);
    scratch[i]! += 1;
  };
  const text =
    foldedText.length > MAX_FEATURE_CHARS ? foldedText.slice(0, MAX_FEATURE_CHARS) : foldedText;
  let prevWord = 0;
  let word = FNV_OFFSET;
  let inWord = false;
  // Character 4-grams over a rolling window of the last four char codes (word-bounded by spaces).
  let c1 = 32;
  let c2 = 32;
  let c3 = 32;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (isWordChar(c)) {
      word = mix(word, c);
      inWord = true;
    } else if (inWord) {
      const w = mix(word, WORD_SEED);
      bump(w);
      if (prevWord !== 0) bump(mix(mix(prevWord, w), BIGRAM_SEED));
      prevWord = w;
      word = FNV_OFFSET;
      inWord = false;
    }
    const cc = isWordChar(c) ? c : 32;
    if (!(cc === 32 && c3 === 32)) {
      bump(mix(mix(mix(mix(CHAR_SEED, c1), c2), c3), cc));
    }
    c1 = c2;
    c2 = c3;
    c3 = cc;
  }
  const indices = Int32Array.from(touched);
  const values = new Float32Array(indices.length);
  let norm = 0;
  for (let k = 0; k < indices.length; k++) {
    const v = 1 + Math.log(scratch[indices[k]!]!);
    values[k] = v;
    norm += v * v;
    scratch[indices[k]!] = 0;
  }
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < values.length; k++) values[k]! /= norm;
  return { indices, values };
}
