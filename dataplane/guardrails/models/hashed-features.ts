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

/** Longest text the features look at; a prompt's opening carries its intent. */
export const MAX_FEATURE_CHARS = 16384;

/** 1 + ln(count) for small counts. */

/** One buffer of touched bucket numbers per model size, reused by every call. */
const touchedBySize = new Map<number, Int32Array>();

/** Word characters of the features (a-z, 0-9, and from U+00C0 on) for the first 256 codes. */
const WORD_CODES = Uint8Array.from({ length: 256 }, (_, c) =>
  (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c >= 0xc0 ? 1 : 0,
);

function isFeatureWordCode(c: number): boolean {
  return c < 256 ? WORD_CODES[c] === 1 : true;
}

/**
 * Counts the hashed features of a folded text into `dims` buckets (a power of two): word unigrams,
 * word bigrams and character 4-grams (word-bounded by spaces). Every character that is not a word
 * character counts as a space; the text ends with one more space. At a word's end its unigram and
 * (after another word) its bigram come before the 4-gram that ends with the space. The buckets are
 * listed in the order the text first touches them.
 */
export function featureCounts(foldedText: string, dims: number): BucketCounts {
  const t = countIntoScratch(foldedText, dims);
  const counts = countScratchOf(dims);
  const touched = touchedOf(dims);
  // Plain arrays: a few hundred small integers are cheaper to allocate than typed arrays. Sized
  // once (filled in full before they are read), rather than grown by push.
  const indices = new Array<number>(t);
  const values = new Array<number>(t);
  for (let k = 0; k < t; k++) {
    const b = touched[k]!;
    indices[k] = b;
    values[k] = counts[b]!;
    counts[b] = 0;
  }
  return { dims, indices, counts: values };
}

/** Counts from `sharedFeatureCounts`, valid while `generation` is the latest (see isCurrent). */
export interface SharedCounts extends BucketCounts {
  readonly generation: number;
}

let sharedGeneration = 0;
const sharedCountIndices = new Map<number, Int32Array>();
const sharedCountValues = new Map<number, Int32Array>();

/**
 * `featureCounts` into buffers shared by every call: the same buckets and counts, valid only
 * until the next call of `sharedFeatureCounts` (`isCurrent` tells). For scoring, where the counts
 * are read by the models at once; saves the two arrays per text (most of a short text's feature
 * allocation).
 */
export function sharedFeatureCounts(foldedText: string, dims: number): SharedCounts {
  const t = countIntoScratch(foldedText, dims);
  const counts = countScratchOf(dims);
  const touched = touchedOf(dims);
  let indices = sharedCountIndices.get(dims);
  let values = sharedCountValues.get(dims);
  if (indices === undefined || values === undefined) {
    indices = new Int32Array(dims);
    values = new Int32Array(dims);
    sharedCountIndices.set(dims, indices);
    sharedCountValues.set(dims, values);
  }
  for (let k = 0; k < t; k++) {
    const b = touched[k]!;
    indices[k] = b;
    values[k] = counts[b]!;
    counts[b] = 0;
  }
  return {
    dims,
    indices: indices.subarray(0, t),
    counts: values.subarray(0, t),
    generation: ++sharedGeneration,
  };
}

/** Whether shared counts still hold (no later `sharedFeatureCounts` call overwrote them). */
export function isCurrent(counts: SharedCounts): boolean {
  return counts.generation === sharedGeneration;
}

/**
 * The counting of featureCounts: the `t` touched buckets are in touchedOf(dims)[0 .. t), their
 * counts in countScratchOf(dims), which the caller reads and zeroes again.
 */
function countIntoScratch(foldedText: string, dims: number): number {
  const text =
    foldedText.length > MAX_FEATURE_CHARS ? foldedText.slice(0, MAX_FEATURE_CHARS) : foldedText;
  const counts = countScratchOf(dims);
  const touched = touchedOf(dims);
  const mask = dims - 1;
  let t = 0;
  let prevWord = 0;
  let c1 = 32;
  let c2 = 32;
  let c3 = 32;
  const n = text.length;
  // The hashing of mix() is written out inline. One loop per word and one step per other
  // character: the word test is taken once per character and the word's end needs no flag.
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (isFeatureWordCode(c)) {
      let word = FNV_OFFSET;
      do {
        word = Math.imul(word ^ c, FNV_PRIME);
        const h = Math.imul(
          Math.imul(Math.imul(CHAR_SEED ^ c1, FNV_PRIME) ^ c2, FNV_PRIME) ^ c3,
          FNV_PRIME,
        );
        const b = Math.imul(h ^ c, FNV_PRIME) & mask;
        if (counts[b]!++ === 0) touched[t++] = b;
        c1 = c2;
        c2 = c3;
        c3 = c;
        i++;
        if (i >= n) break;
        c = text.charCodeAt(i);
      } while (isFeatureWordCode(c));
      // The word ends at i (a space, or the end of the text).
      const w = Math.imul(word ^ WORD_SEED, FNV_PRIME);
      let b = w & mask;
      if (counts[b]!++ === 0) touched[t++] = b;
      if (prevWord !== 0) {
        b = Math.imul(Math.imul(prevWord ^ w, FNV_PRIME) ^ BIGRAM_SEED, FNV_PRIME) & mask;
        if (counts[b]!++ === 0) touched[t++] = b;
      }
      prevWord = w;
    }
    // A space at i (the character, or the one after the text's end when a word ran out there):
    // a 4-gram unless it follows another space.
    if (c3 !== 32) {
      const h = Math.imul(
        Math.imul(Math.imul(CHAR_SEED ^ c1, FNV_PRIME) ^ c2, FNV_PRIME) ^ c3,
        FNV_PRIME,
      );
      const b = Math.imul(h ^ 32, FNV_PRIME) & mask;
      if (counts[b]!++ === 0) touched[t++] = b;
    }
    c1 = c2;
    c2 = c3;
    c3 = 32;
    i++;
  }
  return t;
}

/** One zeroed integer count buffer per model size, reused (and left zeroed) by featureCounts. */
const countScratchBySize = new Map<number, Int32Array>();

function countScratchOf(dims: number): Int32Array {
  let counts = countScratchBySize.get(dims);
  if (counts === undefined) {
    counts = new Int32Array(dims);
    countScratchBySize.set(dims, counts);
  }
  return counts;
}

/** The touched-bucket buffer of `dims`, shared with feature-vectors.ts (one call at a time). */
export function touchedOf(dims: number): Int32Array {
  let touched = touchedBySize.get(dims);
  if (touched === undefined) {
    touched = new Int32Array(dims);
    touchedBySize.set(dims, touched);
  }
  return touched;
}

/** Raw counts per bucket (`dims` a power of two): the touched buckets and their counts. */
export interface BucketCounts {
  dims: number;
  indices: ArrayLike<number>;
  /** Whole numbers. */
  counts: ArrayLike<number>;
}
