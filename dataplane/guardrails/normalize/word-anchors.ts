/**
 * Anchored matching for the pattern detectors. Most patterns start with an alternation of words
 * ("(?:ignore|disregard|forget) ..."), so a match can only start at a word of the text that begins
 * with one of those words' first letters (up to four): the pattern's anchors. The text's words are
 * indexed once by prefix; each anchored pattern is then tried (sticky) only at those positions
 * instead of at every character, which keeps a scan of ordinary text far below a millisecond.
 */

import {
  addAnchoredPattern,
  ANCHOR_LENGTH,
  indexWords,
  addStart,
  anchoredPatternCount,
  isWordCode,
  RANK_STRIDE,
  WHOLE_WORD,
} from "./anchor-trie.js";
import { closingParen, topLevelAlternatives } from "./regex-source.js";
import { addUnanchored, unanchoredMayMatch } from "./unanchored-union.js";

export { unanchoredPatterns } from "./unanchored-union.js";

/** The leading word-boundary assertion the patterns use; anchors are read after it. */
const LEADING_BOUNDARY = "(?<![\\p{L}\\p{N}])";

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
  // Sized once for every pattern (grown as patterns were hit, it was reallocated several times).
  const starts = new Array<number[] | undefined>(anchoredPatternCount());
  const index: WordIndex = { starts, scanUnanchored: unanchoredMayMatch(text) };
  const base = owner === undefined ? undefined : (owner as DerivableOwner)[INDEX_BASE];
  if (base === undefined) indexWords(text, 0, text.length, index.starts);
  else derivedStarts(text, base, index.starts);
  if (owner !== undefined && Object.isExtensible(owner)) (owner as IndexOwner)[INDEX] = index;
  return index;
}

/**
 * Word starts at least this far inside a stretch (after its first character, and with the
 * ANCHOR_LENGTH + 1 characters the walk reads) have the base's anchors.
 */
const EDGE_AFTER = ANCHOR_LENGTH + 1;

/**
 * The offset of an encoded start (encoded % RANK_STRIDE). Encoded starts of high anchor ranks are
 * not small integers, and % on such numbers is a call into the runtime; a division by a power of
 * two, its floor and the product are exact, and compile to a few instructions.
 */
function offsetOf(encoded: number): number {
  return encoded - Math.floor(encoded / RANK_STRIDE) * RANK_STRIDE;
}

/** The starts of `text` from its base's index plus walks over the rest (see IndexBase). */
function derivedStarts(text: string, base: IndexBase, starts: (number[] | undefined)[]): void {
  const { stretches } = base;
  const count = stretches.length / 3;
  // Base hits inside a stretch, moved to the text's offsets.
  const baseStarts = wordIndex(base.text, base.owner).starts;
  for (let pattern = 0; pattern < baseStarts.length; pattern++) {
    const encoded = baseStarts[pattern];
    if (encoded === undefined) continue;
    // lo: how many stretches start in base at or before q (stretches are in base order too), so
    // lo - 1 is the last one. Offsets mostly come in ascending order (the walk pushes them so):
    // then lo moves on from the previous offset's, else it is searched for (a mispredicted branch
    // per step of a binary search cost more than the whole derivation otherwise).
    let lo = 0;
    let previous = Infinity;
    for (const e of encoded) {
      const q = offsetOf(e);
      if (q >= previous) {
        while (lo < count && stretches[lo * 3 + 1]! <= q) lo++;
      } else {
        lo = 0;
        let hi = count;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (stretches[mid * 3 + 1]! <= q) lo = mid + 1;
          else hi = mid;
        }
      }
      previous = q;
      if (lo === 0) continue;
      const k = (lo - 1) * 3;
      const offset = q - stretches[k + 1]!;
      if (offset >= 1 && offset + EDGE_AFTER <= stretches[k + 2]!)
        addStart(starts, pattern, e - q + stretches[k]! + offset);
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
  if (words === undefined) {
    addUnanchored(regex);
    return { regex, anchors: undefined, sticky: undefined, pattern: -1 };
  }
  const { pattern, ids } = addAnchoredPattern(words);
  return { regex, anchors: ids, sticky: new RegExp(regex.source, "uy"), pattern };
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
  const ordered = starts.length > 1 ? inOrder(starts) : starts;
  const found: RegExpExecArray[] = [];
  for (let k = 0; k < ordered.length; k++) {
    const encoded = ordered[k]!;
    p.sticky.lastIndex = offsetOf(encoded);
    const m = p.sticky.exec(text);
    if (m === null) continue;
    found.push(m);
    if (found.length >= max) break;
  }
  return found;
}

/** Up to this many starts are sorted by insertion (in place); more by the engine's numeric sort. */
const INSERTION_SORTED = 48;

/**
 * The encoded starts in ascending order. A comparator called from Array.prototype.sort cost about
 * 2.5 us of the 7 us of pattern matching on the bench's 4 KB; most lists are short and already in
 * order (one anchor rank), or a few ordered runs interleaved.
 */
function inOrder(starts: number[]): ArrayLike<number> {
  const n = starts.length;
  if (n > INSERTION_SORTED) return new Float64Array(starts).sort();
  for (let k = 1; k < n; k++) {
    const value = starts[k]!;
    let j = k - 1;
    while (j >= 0 && starts[j]! > value) {
      starts[j + 1] = starts[j]!;
      j--;
    }
    starts[j + 1] = value;
  }
  return starts;
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
