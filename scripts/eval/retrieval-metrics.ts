/**
 * Ranking metrics as BEIR and trec_eval define them, for one query at a time; the evaluation
 * reports their mean over the queries.
 *
 * - nDCG@k: DCG = sum over ranks i <= k of (2^rel_i - 1) / log2(i + 1), divided by the DCG of the
 *   ideal order of the judged documents (graded relevance; binary sets use rel 1).
 * - Recall@k: relevant documents in the top k over all relevant documents.
 * - MRR@k: 1 / rank of the first relevant document within the top k, 0 when none is there.
 */
export type Judgements = ReadonlyMap<string, number>;

function gain(rel: number): number {
  return 2 ** rel - 1;
}

export function ndcgAt(k: number, ranked: readonly string[], judged: Judgements): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += gain(judged.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((r) => r > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, rel, i) => sum + gain(rel) / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function recallAt(k: number, ranked: readonly string[], judged: Judgements): number {
  const relevant = [...judged.entries()].filter(([, r]) => r > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mrrAt(k: number, ranked: readonly string[], judged: Judgements): number {
  const i = ranked.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
