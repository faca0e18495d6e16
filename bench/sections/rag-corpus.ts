/**
 * The RAG benchmark's synthetic corpus: deterministic text whose word frequencies follow Zipf's
 * law (the most frequent words being English stop words), and random unit vectors.
 */

export const DIMS = 256;
export const VOCABULARY = 20_000;

/** A deterministic generator (mulberry32), so every run indexes the same text. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES =
  "ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru ta te ti to tu".split(
    " ",
  );

/** The head of the distribution: English stop words, which the text search drops, as in real text. */
export const STOP_WORDS =
  "the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can".split(
    " ",
  );

/** Word of rank r: a stop word, else three or four syllables (letters only: one lexeme). */
export function word(rank: number): string {
  if (rank < STOP_WORDS.length) return STOP_WORDS[rank] as string;
  let n = rank;
  let w = "";
  for (let i = 0; i < 4 && (i < 3 || n > 0); i++) {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return w;
}

/** Zipf-distributed word ranks (exponent 1), as in natural text. */
export function zipf(rand: () => number): () => number {
  const weights: number[] = [];
  let total = 0;
  for (let r = 1; r <= VOCABULARY; r++) {
    total += 1 / r;
    weights.push(total);
  }
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = weights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((weights[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function unit(rand: () => number): number[] {
  const v = Array.from({ length: DIMS }, () => rand() - 0.5);
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}
