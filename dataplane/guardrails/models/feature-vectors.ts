/**
 * Hashed feature counts made into model input: log-scaled, L2-normalised sparse vectors, folded
 * onto a model's (smaller) bucket count. Split from hashed-features.ts, which counts.
 */
import {
  featureCounts,
  touchedOf,
  type BucketCounts,
  type SparseVector,
} from "./hashed-features.js";

const LOG_TABLE = Float32Array.from({ length: 64 }, (_, n) => (n === 0 ? 0 : 1 + Math.log(n)));

/** One zeroed work buffer per model size, reused (and left zeroed) by every call. */
const scratchBySize = new Map<number, Float32Array>();

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
  return { indices: Int32Array.from(indices), values };
}

/** A vectorised text in reused buffers: valid only until the next call of `vectorizeShared`. */
export interface SharedVector {
  length: number;
  indices: Int32Array;
  /** Float32-rounded values, as `vectorizeCounts` stores them. */
  values: Float64Array;
}

const sharedIndices = new Map<number, Int32Array>();
const sharedValues = new Map<number, Float64Array>();

/**
 * `vectorizeCounts` without allocating: the same buckets and the same (float32) values, written
 * into buffers shared by every call. For scoring, where the vector is used once and dropped.
 */
export function vectorizeShared(c: BucketCounts, dims: number): SharedVector {
  const source = c.indices;
  let length = source.length;
  let indices = sharedIndices.get(dims);
  let values = sharedValues.get(dims);
  if (indices === undefined || values === undefined) {
    indices = new Int32Array(dims);
    values = new Float64Array(dims);
    sharedIndices.set(dims, indices);
    sharedValues.set(dims, values);
  }
  const counts = dims === c.dims ? c.counts : undefined;
  // Each count is log-scaled as it is stored, and the norm summed in the same (bucket) order.
  let norm = 0;
  if (counts === undefined) {
    // Fold the counts onto `dims` buckets in the scratch buffer, keeping the touched order.
    const scratch = scratchOf(dims);
    const mask = dims - 1;
    length = 0;
    for (let k = 0; k < source.length; k++) {
      const i = source[k]! & mask;
      if (scratch[i] === 0) indices[length++] = i;
      scratch[i]! += c.counts[k]!;
    }
    for (let k = 0; k < length; k++) {
      const i = indices[k]!;
      const count = scratch[i]! | 0;
      scratch[i] = 0;
      const v = count < LOG_TABLE.length ? LOG_TABLE[count]! : 1 + Math.log(count);
      values[k] = Math.fround(v);
      norm += v * v;
    }
  } else {
    for (let k = 0; k < length; k++) {
      indices[k] = source[k]!;
      const count = counts[k]! | 0;
      const v = count < LOG_TABLE.length ? LOG_TABLE[count]! : 1 + Math.log(count);
      values[k] = Math.fround(v);
      norm += v * v;
    }
  }
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < length; k++) values[k] = Math.fround(values[k]! / norm);
  return { length, indices, values };
}

function countBucketsOf(c: BucketCounts, dims: number): BucketCounts {
  const scratch = scratchOf(dims);
  const touched = touchedOf(dims);
  const mask = dims - 1;
  let t = 0;
  const { indices, counts } = c;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k]! & mask;
    if (scratch[i] === 0) touched[t++] = i;
    scratch[i]! += counts[k]!;
  }
  return drain(scratch, touched, t, dims);
}

export function hashedFeatures(foldedText: string, dims: number): SparseVector {
  return vectorizeCounts(featureCounts(foldedText, dims), dims);
}

/** The touched buckets and their counts, leaving the scratch buffer zeroed again. */
function drain(scratch: Float32Array, touched: Int32Array, t: number, dims: number): BucketCounts {
  const indices = touched.slice(0, t);
  const counts = new Float32Array(t);
  for (let k = 0; k < t; k++) {
    const i = indices[k]!;
    counts[k] = scratch[i]!;
    scratch[i] = 0;
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
