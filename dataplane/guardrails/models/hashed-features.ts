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

/** 1 + ln(count) for small counts. */
const LOG_TABLE = Float32Array.from({ length: 64 }, (_, n) => (n === 0 ? 0 : 1 + Math.log(n)));

/** One zeroed work buffer per model size, reused (and left zeroed) by every call. */
const scratchBySize = new Map<number, Float32Array>();

/** The raw 32-bit feature hashes of a folded text (repeats kept); vectorise per model size. */
/**
 * Counts the hashed features of a folded text into `dims` buckets (a power of two): word unigrams,
 * word bigrams and character 4-grams (word-bounded by spaces).
 */
export function featureCounts(foldedText: string, dims: number): BucketCounts {
  const text =
    foldedText.length > MAX_FEATURE_CHARS ? foldedText.slice(0, MAX_FEATURE_CHARS) : foldedText;
  const scratch = scratchOf(dims);
  const mask = dims - 1;
  const touched = new Int32Array(Math.min(text.length * 3 + 2, dims));
  let t = 0;
  const bump = (h: number): void => {
    const i = h & mask;
    if (scratch[i] === 0) touched[t++] = i;
    scratch[i]! += 1;
  };
  let prevWord = 0;
  let word = FNV_OFFSET;
  let inWord = false;
  let c1 = 32;
  let c2 = 32;
  let c3 = 32;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const wordChar = isWordChar(c);
    if (wordChar) {
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
    const cc = wordChar ? c : 32;
    if (!(cc === 32 && c3 === 32)) bump(mix(mix(mix(mix(CHAR_SEED, c1), c2), c3), cc));
    c1 = c2;
    c2 = c3;
    c3 = cc;
  }
  const indices = touched.slice(0, t);
  const counts = new Float32Array(t);
  for (let k = 0; k < t; k++) {
    counts[k] = scratch[indices[k]!]!;
    scratch[indices[k]!] = 0;
  }
  return { dims, indices, counts };
}

function scratchOf(dims: number): Float32Array {
  let scratch = scratchBySize.get(dims);
  if (scratch === undefined) {
    scratch = new Float32Array(dims);
    scratchBySize.set(dims, scratch);
  }
  return scratch;
}

/** Raw counts per bucket (`dims` a power of two): the touched buckets and their counts. */
export interface BucketCounts {
  dims: number;
  indices: Int32Array;
  counts: Float32Array;
}

/**
 * Log-scaled, L2-normalised features at `dims` (a power of two no larger than `c.dims`): buckets
 * of a larger size fold exactly onto a smaller one, so one count serves several models.
 */
export function vectorizeCounts(c: BucketCounts, dims: number): SparseVector {
  let indices = c.indices;
  let counts = c.counts;
  if (dims !== c.dims) {
    const folded = countBucketsOf(c, dims);
    indices = folded.indices;
    counts = folded.counts;
  }
  const values = new Float32Array(indices.length);
  let norm = 0;
  for (let k = 0; k < indices.length; k++) {
    const count = counts[k]! | 0;
    const v = count < LOG_TABLE.length ? LOG_TABLE[count]! : 1 + Math.log(count);
    values[k] = v;
    norm += v * v;
  }
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < values.length; k++) values[k]! /= norm;
  return { indices, values };
}

function countBucketsOf(
  c: BucketCounts,
  dims: number,
): { indices: Int32Array; counts: Float32Array } {
  const scratch = scratchOf(dims);
  const mask = dims - 1;
  const touched = new Int32Array(Math.min(c.indices.length, dims));
  let t = 0;
  for (let k = 0; k < c.indices.length; k++) {
    const i = c.indices[k]! & mask;
    if (scratch[i] === 0) touched[t++] = i;
    scratch[i]! += c.counts[k]!;
  }
  const indices = touched.slice(0, t);
  const counts = new Float32Array(t);
  for (let k = 0; k < t; k++) {
    counts[k] = scratch[indices[k]!]!;
    scratch[indices[k]!] = 0;
  }
  return { indices, counts };
}

export function hashedFeatures(foldedText: string, dims: number): SparseVector {
  return vectorizeCounts(featureCounts(foldedText, dims), dims);
}
