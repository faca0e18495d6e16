/**
 * Trains a multinomial logistic regression over hashed features with AdaGrad and L2, in a fixed
 * order from a seeded shuffle, so the same data always gives the same weights.
 */
import { hashedFeatures } from "../dataplane/guardrails/models/feature-vectors.js";
import type { SparseVector } from "../dataplane/guardrails/models/hashed-features.js";
import { softmax } from "../dataplane/guardrails/models/linear-model.js";

export interface TrainingExample {
  text: string;
  /** Index into the class list. */
  y: number;
  weight?: number;
}

export interface TrainOptions {
  dims: number;
  classes: number;
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
}

export interface TrainedWeights {
  bias: Float64Array;
  weights: Float64Array;
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function trainSoftmax(examples: TrainingExample[], o: TrainOptions): TrainedWeights {
  const { dims, classes } = o;
  const weights = new Float64Array(classes * dims);
  const bias = new Float64Array(classes);
  const g2 = new Float64Array(classes * dims).fill(1e-6);
  const b2 = new Float64Array(classes).fill(1e-6);
  const xs: SparseVector[] = examples.map((e) => hashedFeatures(e.text, dims));
  const order = examples.map((_, i) => i);
  const rand = mulberry32(o.seed);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const n of order) {
      const x = xs[n]!;
      const ex = examples[n]!;
      const logits = Float64Array.from(bias);
      for (let c = 0; c < classes; c++) {
        let s = 0;
        for (let k = 0; k < x.indices.length; k++)
          s += weights[c * dims + x.indices[k]!]! * x.values[k]!;
        logits[c]! += s;
      }
      const p = softmax(logits);
      const w = ex.weight ?? 1;
      for (let c = 0; c < classes; c++) {
        const err = (p[c]! - (c === ex.y ? 1 : 0)) * w;
        b2[c]! += err * err;
        bias[c]! -= (o.learningRate * err) / Math.sqrt(b2[c]!);
        for (let k = 0; k < x.indices.length; k++) {
          const idx = c * dims + x.indices[k]!;
          const grad = err * x.values[k]! + o.l2 * weights[idx]!;
          g2[idx]! += grad * grad;
          weights[idx]! -= (o.learningRate * grad) / Math.sqrt(g2[idx]!);
        }
      }
    }
  }
  return { bias, weights };
}
