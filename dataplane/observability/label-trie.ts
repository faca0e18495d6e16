interface TrieNode<S> {
  readonly next: Map<string, TrieNode<S>>;
  slot: S | undefined;
}

const newNode = <S>(): TrieNode<S> => ({ next: new Map(), slot: undefined });

/**
 * Slots found by their label values, one map level per label, so finding the slot of a label set
 * seen before allocates nothing (no key string, no labels object). Holds at most `capacity` slots;
 * past it `find` misses and `add` refuses, so the caller falls back to building labels per call.
 */
export class LabelTrie<S> {
  private readonly root: TrieNode<S> = newNode();
  private size = 0;

  constructor(
    private readonly depth: number,
    private readonly capacity: number,
  ) {
    if (depth > 4) throw new Error("at most four labels");
  }

  find(a?: string, b?: string, c?: string, d?: string): S | undefined {
    let node: TrieNode<S> | undefined = this.root;
    for (let level = 0; level < this.depth && node !== undefined; level++) {
      const key = keyAt(level, a, b, c, d);
      node = key === undefined ? undefined : node.next.get(key);
    }
    return node?.slot;
  }

  /** Keeps `slot` for these values; false (nothing kept) when full or a value is missing. */
  add(slot: S, a?: string, b?: string, c?: string, d?: string): boolean {
    if (this.size >= this.capacity) return false;
    for (let level = 0; level < this.depth; level++)
      if (keyAt(level, a, b, c, d) === undefined) return false;
    let node = this.root;
    for (let level = 0; level < this.depth; level++) {
      const key = keyAt(level, a, b, c, d) as string;
      let child = node.next.get(key);
      if (child === undefined) node.next.set(key, (child = newNode()));
      node = child;
    }
    if (node.slot === undefined) this.size++;
    node.slot = slot;
    return true;
  }
}

function keyAt(level: number, a?: string, b?: string, c?: string, d?: string): string | undefined {
  return level === 0 ? a : level === 1 ? b : level === 2 ? c : d;
}
