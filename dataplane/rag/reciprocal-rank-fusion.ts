/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each list gives an item
 * 1 / (k + rank) (rank from 1), and an item's fused score is the sum over the lists it is in.
 * Only ranks matter, so a BM25 score and a cosine similarity need no common scale. k = 60 is the
 * paper's value: it damps the head of each list so one list alone cannot decide the order.
 */
export const RRF_K = 60;

export interface RankedList {
  /** Item ids, best first. */
  ids: readonly string[];
}

export interface FusedItem {
  id: string;
  score: number;
  /** 1-based rank of the item in each input list, null where the list does not contain it. */
  ranks: (number | null)[];
}

export function reciprocalRankFusion(lists: readonly RankedList[], k = RRF_K): FusedItem[] {
  const fused = new Map<string, FusedItem>();
  lists.forEach((list, li) => {
    list.ids.forEach((id, i) => {
      let item = fused.get(id);
      if (!item) {
        item = { id, score: 0, ranks: lists.map(() => null) };
        fused.set(id, item);
      }
      if (item.ranks[li] !== null) return; // a list naming an id twice counts its best rank
      item.ranks[li] = i + 1;
      item.score += 1 / (k + i + 1);
    });
  });
  // Ties (equal fused score) go to the item with the better best rank, then by id, so the
  // order is the same on every run.
  const best = (f: FusedItem) => Math.min(...f.ranks.map((r) => r ?? Infinity));
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || best(a) - best(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
