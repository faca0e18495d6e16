import type { InferenceCall } from "../core/inference-call.js";

/**
 * Turns the prompt of `call` into a unit vector (so a dot product is the cosine similarity), with
 * the embedding model the customer named. The call is the chat completion whose cache lookup needs
 * the vector: the embedding runs as the same caller (see adapters/http/compat/cache-embedding-call).
 */
export type Embed = (call: InferenceCall, model: string, text: string) => Promise<Embedding>;

export interface Embedding {
  vector: number[];
  /** The request id of the embedding call (its own audit record). */
  requestId: string;
}

/** Prompt text sent to the embedding model at most (the start of the prompt). */
export const MAX_EMBED_CHARS = 32_000;

/** The first vector of an embeddings response, as a unit vector; undefined when there is none. */
export function vectorOf(response: unknown): number[] | undefined {
  const data = (response as { data?: { embedding?: unknown }[] } | null)?.data;
  const vector = Array.isArray(data) ? data[0]?.embedding : undefined;
  if (
    !Array.isArray(vector) ||
    vector.length === 0 ||
    !vector.every((x) => typeof x === "number" && Number.isFinite(x))
  ) {
    return undefined;
  }
  return unitVector(vector as number[]);
}

export function unitVector(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v.map(() => 0) : v.map((x) => x / norm);
}
