/**
 * Anchored matching for the pattern detectors. Most patterns start with an alternation of words
 * ("(?:ignore|disregard|forget) ..."), so a match can only start at a word of the text that begins
 * with one of those words' first letters (up to four): the pattern's anchors. The text's words are
 * indexed once by prefix; each anchored pattern is then tried (sticky) only at those positions
 * instead of at every character, which keeps a scan of ordinary text far below a millisecond.
 */

import { closingParen, leadingCharacters, topLevelAlternatives } from "./regex-source.js";

/** The leading word-boundary assertion the patterns use; anchors are read after it. */
const LEADING_BOUNDARY = "(?<![\\p{L}\\p{N}])";
const ANCHOR_LENGTH = 4;

function isWordCode(c: number): boolean {
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
const WHOLE_WORD = "$";

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

/**
 * Patterns without anchors are scanned for everywhere; one regex of all of them (their union)
 * tells in one scan whether any can match a text at all (most texts: none).
 */
const UNANCHORED: RegExp[] = [];
let unanchoredUnion: UnanchoredUnion | undefined | null;

/**
 * The union, and when every unanchored pattern's matches can only start at offset 0 or at one of a
 * few characters (delimiters: "<", "[", a line break, a full stop...), those characters as a
 * class: then the union is tried (sticky) only there, which costs about half a scan with it.
 */
interface UnanchoredUnion {
  union: RegExp;
  sticky: RegExp;
  leading: RegExp | undefined;
}

function unionOfUnanchored(): UnanchoredUnion | undefined {
  if (unanchoredUnion !== undefined) return unanchoredUnion ?? undefined;
  unanchoredUnion = null;
  if (UNANCHORED.length === 0) return undefined;
  const sources = UNANCHORED.map((r) => r.source);
  const flags = new Set(UNANCHORED.map((r) => r.flags.replace(/[gy]/g, "")));
  // Back-references would point at other alternatives' groups; then no shortcut.
  if (flags.size !== 1 || sources.some((s) => /\\[1-9k]/.test(s))) return undefined;
  const flag = [...flags][0]!;
  const source = sources.map((s) => `(?:${s})`).join("|");
  const leadingSets = UNANCHORED.map(leadingCharacters);
  const chars = new Set(leadingSets.flatMap((set) => (set === undefined ? [] : [...set])));
  const known = chars.size > 0 && leadingSets.every((set) => set !== undefined);
  const escaped = [...chars].map((ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join("");
  unanchoredUnion = {
    union: new RegExp(source, flag),
    sticky: new RegExp(source, `${flag}y`),
    leading: known ? new RegExp(`[${escaped}]`, "gu") : undefined,
  };
  return unanchoredUnion;
}

/** The patterns without anchors compiled so far (for tests). */
export function unanchoredPatterns(): readonly RegExp[] {
  return UNANCHORED;
}

/** Whether any pattern without anchors matches somewhere in `text` (as `union.test(text)`). */
function unanchoredCanMatch(u: UnanchoredUnion, text: string): boolean {
  const { sticky, leading } = u;
  if (leading === undefined) return u.union.test(text);
  sticky.lastIndex = 0;
  if (sticky.test(text)) return true;
  leading.lastIndex = 0;
  for (let m = leading.exec(text); m !== null; m = leading.exec(text)) {
    sticky.lastIndex = m.index;
    if (sticky.test(text)) return true;
  }
  return false;
}

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

/** Start offsets of a candidate are kept as rank * RANK_STRIDE + offset, so one sort orders them. */
const RANK_STRIDE = 2 ** 26;

/**
 * For each anchored pattern (by its number), the offsets of the words of a text that begin with
 * one of its anchors, encoded with the anchor's rank (see RANK_STRIDE); built in one pass.
 */
export interface WordIndex {
  starts: (number[] | undefined)[];
  /** False when no pattern without anchors can match the text. */
  scanUnanchored: boolean;
}

/** The index of an owner's text, kept on the owner itself (cheaper than a WeakMap per call). */
const INDEX = Symbol("word index");
type IndexOwner = { [INDEX]?: WordIndex };

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
 * How a text's index can be derived from another text's: the text is made of stretches equal to
 * stretches of `base` (as the leetspeak view is made of windows of the folded text, with the
 * leetspeak runs changed), given as (offset in the text, offset in base, length) triples in text
 * order. A word start's anchors depend only on the character before it and the next
 * ANCHOR_LENGTH + 1, so inside a stretch they are the base's; only the stretches' edges and the
 * characters between them are walked.
 */
export interface IndexBase {
  text: string;
  /** The owner the base's index is kept on (see wordIndex). */
  owner: object;
  stretches: Int32Array;
}

/** Put on an index owner (a scan view): its index is derived from that base's. */
export const INDEX_BASE = Symbol("index base");
type DerivableOwner = IndexOwner & { [INDEX_BASE]?: IndexBase };

/** Index the words of `text`; pass `owner` (e.g. the scan view) to share it between detectors. */
export function wordIndex(text: string, owner?: object): WordIndex {
  const cached = owner === undefined ? undefined : (owner as IndexOwner)[INDEX];
  if (cached !== undefined) return cached;
  const union = unionOfUnanchored();
  const index: WordIndex = {
    starts: [],
    scanUnanchored: union === undefined || unanchoredCanMatch(union, text),
  };
  const base = owner === undefined ? undefined : (owner as DerivableOwner)[INDEX_BASE];
  if (base === undefined) indexWords(text, 0, text.length, index.starts);
  else derivedStarts(text, base, index.starts);
  if (owner !== undefined && Object.isExtensible(owner)) (owner as IndexOwner)[INDEX] = index;
  return index;
}

/** Adds the anchors of the words of `text` that start in [from, to) to `starts`. */
function indexWords(
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
            (starts[hits[h]!] ??= []).push(hits[h + 1]! + start);
        if ((kind & 2) !== 0 && !isWordChar(text.charCodeAt(i + 1)))
          for (let h = wordFrom[node]!, end = wordFrom[node + 1]!; h < end; h += 2)
            (starts[words[h]!] ??= []).push(words[h + 1]! + start);
      }
      i++;
      if (i - start >= ANCHOR_LENGTH || i >= n) break;
      c = text.charCodeAt(i);
      if (!isWordChar(c)) break;
    }
    while (i < n && isWordChar(text.charCodeAt(i))) i++;
  }
}

/**
 * Word starts at least this far inside a stretch (after its first character, and with the
 * ANCHOR_LENGTH + 1 characters the walk reads) have the base's anchors.
 */
const EDGE_AFTER = ANCHOR_LENGTH + 1;

/** The starts of `text` from its base's index plus walks over the rest (see IndexBase). */
function derivedStarts(text: string, base: IndexBase, starts: (number[] | undefined)[]): void {
  const { stretches } = base;
  const count = stretches.length / 3;
  // Base hits inside a stretch, moved to the text's offsets.
  const baseStarts = wordIndex(base.text, base.owner).starts;
  for (let pattern = 0; pattern < baseStarts.length; pattern++) {
    const encoded = baseStarts[pattern];
    if (encoded === undefined) continue;
    for (const e of encoded) {
      const q = e % RANK_STRIDE;
      // The last stretch starting in base at or before q (stretches are in base order too).
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (stretches[mid * 3 + 1]! <= q) lo = mid + 1;
        else hi = mid;
      }
      if (lo === 0) continue;
      const k = (lo - 1) * 3;
      const offset = q - stretches[k + 1]!;
      if (offset >= 1 && offset + EDGE_AFTER <= stretches[k + 2]!)
        (starts[pattern] ??= []).push(e - q + stretches[k]! + offset);
    }
  }
  // Walk the rest: before each stretch's inner part and after the last one.
  let from = 0;
  for (let k = 0; k < stretches.length; k += 3) {
    const innerFrom = stretches[k]! + 1;
    const innerTo = stretches[k]! + stretches[k + 2]! - EDGE_AFTER + 1;
    if (innerTo <= innerFrom) continue;
    if (innerFrom > from) indexWords(text, from, innerFrom, starts);
    from = innerTo;
  }
  if (from < text.length) indexWords(text, from, text.length, starts);
}

/** A pattern ready for anchored matching: its anchors and a sticky copy of its regex. */
export interface AnchoredRegex {
  regex: RegExp;
  /** Ids of its anchors; undefined when the pattern has none (then it is scanned for). */
  anchors: number[] | undefined;
  sticky: RegExp | undefined;
  /** Its number in the word index (anchored patterns only). */
  pattern: number;
}

/** Compile a pattern for anchored matching. Call at module load, before scanning. */
export function anchored(regex: RegExp): AnchoredRegex {
  const words = anchorsOf(regex.source);
  const pattern = words === undefined ? -1 : patternCount++;
  if (words === undefined) {
    UNANCHORED.push(regex);
    unanchoredUnion = undefined;
  }
  const anchors = words?.map(anchorId);
  anchors?.forEach((id, rank) => PATTERNS_BY_ANCHOR[id]!.push({ pattern, rank }));
  version++;
  return {
    regex,
    anchors,
    sticky: words === undefined ? undefined : new RegExp(regex.source, "uy"),
    pattern,
  };
}

const NO_MATCHES: readonly RegExpExecArray[] = Object.freeze([]);

/**
 * False when anchoredMatches would find nothing without trying: no word of the text starts with
 * one of the pattern's anchors, or (a pattern without anchors) no such pattern can match the text.
 * Lets a scan over many patterns skip most of them with one look-up.
 */
export function mayMatch(p: AnchoredRegex, index: WordIndex): boolean {
  return p.sticky === undefined ? index.scanUnanchored : index.starts[p.pattern] !== undefined;
}

/**
 * Matches of the pattern in `text`, at most `max`: tried only at anchor positions when the pattern
 * has anchors (in anchor order, possibly overlapping or repeated), else scanned for everywhere.
 * Matches that start inside a word are skipped.
 */
export function anchoredMatches(
  p: AnchoredRegex,
  text: string,
  index: WordIndex,
  max: number,
): readonly RegExpExecArray[] {
  if (p.sticky === undefined)
    return index.scanUnanchored ? scannedMatches(p.regex, text, max) : NO_MATCHES;
  const starts = index.starts[p.pattern];
  if (starts === undefined) return NO_MATCHES;
  // Each anchor's word starts in turn; a word start that matches several anchors is tried once
  // per anchor, and callers de-duplicate by span.
  if (starts.length > 1) starts.sort((a, b) => a - b);
  const found: RegExpExecArray[] = [];
  for (const encoded of starts) {
    p.sticky.lastIndex = encoded % RANK_STRIDE;
    const m = p.sticky.exec(text);
    if (m === null) continue;
    found.push(m);
    if (found.length >= max) break;
  }
  return found;
}

function scannedMatches(regex: RegExp, text: string, max: number): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  regex.lastIndex = 0;
  for (const m of text.matchAll(regex)) {
    if (
      m.index > 0 &&
      isWordCode(text.charCodeAt(m.index)) &&
      isWordCode(text.charCodeAt(m.index - 1))
    )
      continue;
    found.push(m);
    if (found.length >= max) break;
  }
  return found;
}

/**
 * The literal word characters an alternative starts with (an optional last one excluded), marked
 * as a whole word when it is short and followed by a space or apostrophe ("i want" -> "i$").
 */
function literalStart(alternative: string): string {
  let k = 0;
  while (k < alternative.length && isWordCode(alternative.charCodeAt(k))) k++;
  const next = alternative[k];
  if (next === "?" || next === "*" || next === "{") k--;
  const literal = alternative.slice(0, Math.max(k, 0));
  const whole =
    literal.length > 0 && literal.length < ANCHOR_LENGTH && (next === " " || next === "'");
  return whole ? literal + WHOLE_WORD : literal.slice(0, ANCHOR_LENGTH);
}

/** Anchors of one alternative: its literal start, or the anchors of a leading (non-optional) group. */
function alternativeAnchors(alternative: string, into: Set<string>): boolean {
  let alt = alternative;
  while (alt.startsWith("\\b")) alt = alt.slice(2);
  if (alt.startsWith("(?:")) {
    const close = closingParen(alt, 0);
    const quantifier = alt[close + 1];
    if (close < 0 || quantifier === "?" || quantifier === "*" || quantifier === "{") return false;
    return topLevelAlternatives(alt.slice(3, close)).every((inner) =>
      alternativeAnchors(inner, into),
    );
  }
  const literal = literalStart(alt);
  if (literal.length === 0) return false;
  into.add(literal);
  return true;
}

/**
 * The anchors of a regex source, or undefined when the pattern does not start with plain words
 * (then it always runs). Only valid for patterns whose matches must start at a word boundary.
 */
export function anchorsOf(source: string): string[] | undefined {
  const body = source.startsWith(LEADING_BOUNDARY) ? source.slice(LEADING_BOUNDARY.length) : source;
  const anchors = new Set<string>();
  return alternativeAnchors(body, anchors) ? [...anchors] : undefined;
}
