/**
 * The trie of every anchor of every anchored pattern (see word-anchors.ts), and the walk over a
 * text's words that finds, per pattern, the word starts that begin with one of its anchors.
 */

/** Anchors are at most this many characters. */
export const ANCHOR_LENGTH = 4;

export function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7);
}

/** isWordCode by table for the first 256 char codes (the scan's common case). */
const WORD_CODES = Uint8Array.from({ length: 256 }, (_, c) => (isWordCode(c) ? 1 : 0));

function isWordChar(c: number): boolean {
  return c < 256 ? WORD_CODES[c] === 1 : isWordCode(c);
}

/**
 * Every anchor of every compiled pattern, in one trie keyed by char code (anchors are at most four
 * characters, so one walk per word finds all anchors the word starts with).
 */
interface TrieNode {
  /** Children by any char code of 128 and above (ASCII children are in ASCII_NEXT). */
  high: Map<number, number> | undefined;
  /** Ids of prefix anchors that end at this node. */
  ids: number[];
  /** Ids of whole-word anchors ("i", "no") that end at this node: only a word ending here counts. */
  wordIds: number[];
}

/** Marks a whole-word anchor: short words like "i" or "do" as prefixes would match half the text. */
export const WHOLE_WORD = "$";

/** The trie's nodes by number; node 0 is the root. */
const NODES: TrieNode[] = [];
/** ASCII transitions: ASCII_NEXT[node * 128 + c] is the child's number, 0 for none. */
let ASCII_NEXT = new Int32Array(128 * 64);

function newNode(): number {
  NODES.push({ high: undefined, ids: [], wordIds: [] });
  const id = NODES.length - 1;
  if ((id + 1) * 128 > ASCII_NEXT.length) {
    const grown = new Int32Array(ASCII_NEXT.length * 2);
    grown.set(ASCII_NEXT);
    ASCII_NEXT = grown;
  }
  return id;
}

const ROOT = newNode();

/** The child of `node` by char code `c`, 0 when there is none (the root is never a child). */
function child(node: number, c: number): number {
  return c < 128 ? ASCII_NEXT[node * 128 + c]! : (NODES[node]!.high?.get(c) ?? 0);
}

const ANCHOR_IDS = new Map<string, number>();

/**
 * For each anchor id, the anchored patterns that start with it and the anchor's rank among that
 * pattern's anchors: one walk over a text's words finds the candidate starts of every pattern.
 */
const PATTERNS_BY_ANCHOR: { pattern: number; rank: number }[][] = [];
let patternCount = 0;

function anchorId(anchor: string): number {
  let id = ANCHOR_IDS.get(anchor);
  if (id !== undefined) return id;
  id = ANCHOR_IDS.size;
  ANCHOR_IDS.set(anchor, id);
  PATTERNS_BY_ANCHOR.push([]);
  const whole = anchor.endsWith(WHOLE_WORD);
  const letters = whole ? anchor.slice(0, -1) : anchor;
  let node = ROOT;
  for (let k = 0; k < letters.length; k++) {
    const c = letters.charCodeAt(k);
    let next = child(node, c);
    if (next === 0) {
      next = newNode();
      if (c < 128) ASCII_NEXT[node * 128 + c] = next;
      else (NODES[node]!.high ??= new Map()).set(c, next);
    }
    node = next;
  }
  const target = NODES[node]!;
  (whole ? target.wordIds : target.ids).push(id);
  version++;
  return id;
}

/**
 * Adds an anchored pattern with its anchors (see anchorsOf), in rank order; returns its number in
 * the word index and the ids of its anchors.
 */
export function addAnchoredPattern(anchors: readonly string[]): { pattern: number; ids: number[] } {
  const pattern = patternCount++;
  const ids = anchors.map(anchorId);
  ids.forEach((id, rank) => PATTERNS_BY_ANCHOR[id]!.push({ pattern, rank }));
  version++;
  return { pattern, ids };
}

/** How many anchored patterns there are (the length a text's word index needs). */
export function anchoredPatternCount(): number {
  return patternCount;
}

/** Start offsets of a candidate are kept as rank * RANK_STRIDE + offset, so one sort orders them. */
export const RANK_STRIDE = 2 ** 26;

/**
 * The trie's anchor hits flattened for the scan: for node k, HITS[HIT_FROM[k] .. HIT_FROM[k + 1])
 * are (pattern, rank * RANK_STRIDE) pairs of its prefix anchors, and the same range of WORD_FROM
 * into WORD_HITS those of its whole-word anchors. Rebuilt when a pattern was added since.
 */
let flat:
  | {
      version: number;
      hitFrom: Int32Array;
      hits: number[];
      wordFrom: Int32Array;
      words: number[];
      /** Per node: 1 when it has prefix anchors, | 2 when it has whole-word anchors. */
      kinds: Uint8Array;
    }
  | undefined;
let version = 0;

function flatHits(): NonNullable<typeof flat> {
  if (flat?.version === version) return flat;
  const hitFrom = new Int32Array(NODES.length + 1);
  const wordFrom = new Int32Array(NODES.length + 1);
  const hits: number[] = [];
  const words: number[] = [];
  NODES.forEach((node, k) => {
    hitFrom[k] = hits.length;
    wordFrom[k] = words.length;
    for (const id of node.ids)
      for (const { pattern, rank } of PATTERNS_BY_ANCHOR[id]!)
        hits.push(pattern, rank * RANK_STRIDE);
    for (const id of node.wordIds)
      for (const { pattern, rank } of PATTERNS_BY_ANCHOR[id]!)
        words.push(pattern, rank * RANK_STRIDE);
  });
  hitFrom[NODES.length] = hits.length;
  wordFrom[NODES.length] = words.length;
  const kinds = new Uint8Array(NODES.length);
  for (let k = 0; k < NODES.length; k++)
    kinds[k] = (hitFrom[k + 1]! > hitFrom[k]! ? 1 : 0) | (wordFrom[k + 1]! > wordFrom[k]! ? 2 : 0);
  flat = { version, hitFrom, hits, wordFrom, words, kinds };
  return flat;
}

/**
 * Appends `encoded` to the pattern's starts. A pattern's first start makes a one-element array
 * (most patterns get one start in a short text; `[]` then push reserves 17 slots).
 */
export function addStart(starts: (number[] | undefined)[], pattern: number, encoded: number): void {
  const list = starts[pattern];
  if (list === undefined) starts[pattern] = [encoded];
  else list.push(encoded);
}

/** Adds the anchors of the words of `text` that start in [from, to) to `starts`. */
export function indexWords(
  text: string,
  from: number,
  to: number,
  starts: (number[] | undefined)[],
): void {
  const { hitFrom, hits, wordFrom, words, kinds } = flatHits();
  const next = ASCII_NEXT;
  const n = Math.min(text.length, RANK_STRIDE - 1);
  const last = Math.min(to, n);
  let i = from;
  // Inside a word: its start is before `from`.
  if (i > 0) while (i < last && isWordChar(text.charCodeAt(i - 1))) i++;
  while (i < last) {
    let c = text.charCodeAt(i);
    if (!isWordChar(c)) {
      i++;
      continue;
    }
    // Walk the trie along the word's first ANCHOR_LENGTH characters, collecting the anchors the
    // word starts with (prefix anchors at every node; whole-word anchors where the word ends).
    // `c` is the word character at `i`; the walk leaves `i` after the characters it read.
    const start = i;
    let node = ROOT;
    for (;;) {
      node = c < 128 ? next[node * 128 + c]! : (NODES[node]!.high?.get(c) ?? 0);
      if (node === 0) break;
      const kind = kinds[node]!;
      if (kind !== 0) {
        if ((kind & 1) !== 0)
          for (let h = hitFrom[node]!, end = hitFrom[node + 1]!; h < end; h += 2)
            addStart(starts, hits[h]!, hits[h + 1]! + start);
        if ((kind & 2) !== 0 && !isWordChar(text.charCodeAt(i + 1)))
          for (let h = wordFrom[node]!, end = wordFrom[node + 1]!; h < end; h += 2)
            addStart(starts, words[h]!, words[h + 1]! + start);
      }
      i++;
      if (i - start >= ANCHOR_LENGTH || i >= n) break;
      c = text.charCodeAt(i);
      if (!isWordChar(c)) break;
    }
    while (i < n && isWordChar(text.charCodeAt(i))) i++;
  }
}
