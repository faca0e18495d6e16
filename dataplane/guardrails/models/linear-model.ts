/**
 * A multinomial logistic-regression model over hashed features, stored as a small JSON file:
 * weights quantised to int8 (one scale per class), base64-encoded. Loading decodes once at import;
 * scoring is a sparse dot product per class.
 */
import { hashedFeatures, vectorizeShared, type SharedVector } from "./feature-vectors.js";
import type { BucketCounts, SparseVector } from "./hashed-features.js";

export interface StoredLinearModel {
  /** What the model is for and how it was made (data sources, split, date). */
  description: string;
  dims: number;
  classes: string[];
  bias: number[];
  /** Per class: weight = int8 * scale. */
  scales: number[];
  /** Per class: base64 of `dims` int8 weights. */
  weights: string[];
}

export interface LinearModel {
  dims: number;
  classes: string[];
  bias: Float64Array;
  /** Row-major: weights[c * dims + i]. */
  weights: Float32Array;
  /**
   * The stored int8 weights, feature-major (codes[i * classes + c], as bytes 0..255): one bucket's
   * weights share a cache line, and the largest model fits in 128 KiB.
   */
  codes: Uint8Array;
  /** Per class, the weight of each byte: levels[c * 256 + code] (the same float32 as `weights`). */
  levels: Float64Array;
}

export function loadLinearModel(stored: StoredLinearModel): LinearModel {
  const k = stored.classes.length;
  const weights = new Float32Array(k * stored.dims);
  for (let c = 0; c < k; c++) {
    const bytes = Buffer.from(stored.weights[c]!, "base64");
    const scale = stored.scales[c]!;
    for (let i = 0; i < stored.dims; i++)
      weights[c * stored.dims + i] = ((bytes[i]! << 24) >> 24) * scale;
  }
  const codes = new Uint8Array(k * stored.dims);
  const levels = new Float64Array(k * 256);
  for (let c = 0; c < k; c++) {
    const bytes = Buffer.from(stored.weights[c]!, "base64");
    for (let i = 0; i < stored.dims; i++) codes[i * k + c] = bytes[i]!;
    for (let code = 0; code < 256; code++)
      levels[c * 256 + code] = Math.fround(((code << 24) >> 24) * stored.scales[c]!);
  }
  return {
    dims: stored.dims,
    classes: stored.classes,
    bias: Float64Array.from(stored.bias),
    weights,
    codes,
    levels,
  };
}

/** `softmax`, computed in the logits' own array (the same values, one allocation less). */
function softmaxInPlace(logits: Float64Array): Float64Array {
  const k = logits.length;
  let max = -Infinity;
  for (let c = 0; c < k; c++) max = Math.max(max, logits[c]!);
  let sum = 0;
  for (let c = 0; c < k; c++) {
    logits[c] = Math.exp(logits[c]! - max);
    sum += logits[c]!;
  }
  for (let c = 0; c < k; c++) logits[c]! /= sum;
  return logits;
}

export function softmax(logits: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of logits) max = Math.max(max, v);
  let sum = 0;
  const out = new Float64Array(logits.length);
  for (let c = 0; c < logits.length; c++) {
    out[c] = Math.exp(logits[c]! - max);
    sum += out[c]!;
  }
  for (let c = 0; c < logits.length; c++) out[c]! /= sum;
  return out;
}

export function logitsOf(model: LinearModel, x: SparseVector): Float64Array {
  const logits = Float64Array.from(model.bias);
  const { indices, values } = x;
  const { weights, dims } = model;
  const n = indices.length;
  for (let c = 0; c < logits.length; c++) {
    const base = c * dims;
    let s = 0;
    for (let k = 0; k < n; k++) s += weights[base + indices[k]!]! * values[k]!;
    logits[c]! += s;
  }
  return logits;
}

/** Class probabilities for a folded text. */
export function predict(model: LinearModel, foldedText: string): Float64Array {
  return softmax(logitsOf(model, hashedFeatures(foldedText, model.dims)));
}

/**
 * Class probabilities from precomputed bucket counts (shared by several models). Reads the
 * feature-major int8 codes (the same float32 weights as `weights`), but sums each class in the same order as `logitsOf` (so the result is
 * bit-identical): per class, over the vector's buckets in order.
 */
export function predictCounts(model: LinearModel, counts: BucketCounts): Float64Array {
  return predictInto(new Float64Array(model.bias.length), model, counts);
}

/** One probability buffer per number of classes, shared by every call of `predictShared`. */
const sharedProbabilities = new Map<number, Float64Array>();

/**
 * `predictCounts` into a buffer shared by every call: valid only until the next call of
 * `predictShared`. For scoring, where the probabilities are read at once and dropped.
 */
export function predictShared(model: LinearModel, counts: BucketCounts): Float64Array {
  const k = model.bias.length;
  let out = sharedProbabilities.get(k);
  if (out === undefined) {
    out = new Float64Array(k);
    sharedProbabilities.set(k, out);
  }
  return predictInto(out, model, counts);
}

function predictInto(out: Float64Array, model: LinearModel, counts: BucketCounts): Float64Array {
  const vector = vectorizeShared(counts, model.dims);
  if (model.bias.length === 2) twoClassLogits(model, vector, out);
  else manyClassLogits(model, vector, out);
  return softmaxInPlace(out);
}

/** Each class's sum starts at 0 and gets its bias last (bias + sum, as logitsOf). */
function twoClassLogits(
  model: LinearModel,
  { indices, values, length }: SharedVector,
  logits: Float64Array,
): void {
  const { codes, levels, bias } = model;
  let s0 = 0;
  let s1 = 0;
  for (let n = 0; n < length; n++) {
    const at = indices[n]! * 2;
    const v = values[n]!;
    s0 += levels[codes[at]!]! * v;
    s1 += levels[256 + codes[at + 1]!]! * v;
  }
  logits[0] = bias[0]! + s0;
  logits[1] = bias[1]! + s1;
}

/** Four classes per pass over the vector, each summed in its own variable in vector order. */
function manyClassLogits(
  model: LinearModel,
  { indices, values, length }: SharedVector,
  logits: Float64Array,
): void {
  const { codes, levels, bias } = model;
  const k = bias.length;
  let c = 0;
  for (; c + 4 <= k; c += 4) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    const l0 = c * 256;
    for (let n = 0; n < length; n++) {
      const at = indices[n]! * k + c;
      const v = values[n]!;
      s0 += levels[l0 + codes[at]!]! * v;
      s1 += levels[l0 + 256 + codes[at + 1]!]! * v;
      s2 += levels[l0 + 512 + codes[at + 2]!]! * v;
      s3 += levels[l0 + 768 + codes[at + 3]!]! * v;
    }
    logits[c] = bias[c]! + s0;
    logits[c + 1] = bias[c + 1]! + s1;
    logits[c + 2] = bias[c + 2]! + s2;
    logits[c + 3] = bias[c + 3]! + s3;
  }
  for (; c < k; c++) {
    let s = 0;
    for (let n = 0; n < length; n++)
      s += levels[c * 256 + codes[indices[n]! * k + c]!]! * values[n]!;
    logits[c] = bias[c]! + s;
  }
}

/** Quantise trained float weights into the stored form. */
export function storeLinearModel(
  description: string,
  dims: number,
  classes: string[],
  bias: Float64Array,
  weights: Float64Array,
): StoredLinearModel {
  const scales: number[] = [];
  const encoded: string[] = [];
  for (let c = 0; c < classes.length; c++) {
    let max = 0;
    for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(weights[c * dims + i]!));
    const scale = max / 127 || 1;
    const bytes = Buffer.alloc(dims);
    for (let i = 0; i < dims; i++) bytes.writeInt8(Math.round(weights[c * dims + i]! / scale), i);
    scales.push(scale);
    encoded.push(bytes.toString("base64"));
  }
  return {
    description,
    dims,
    classes,
    bias: Array.from(bias, (b) => Math.round(b * 1e4) / 1e4),
    scales,
    weights: encoded,
  };
}
