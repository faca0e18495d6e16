/**
 * Case-insensitive keyword matching in one pass over the text (Aho-Corasick), whatever the number
 * of keywords. Case folding is per UTF-16 unit (a unit whose lower case is longer, like "İ", stays
 * as it is) so that offsets in the folded text are offsets in the original. Overlapping hits are
 * resolved leftmost-longest; with `wholeWord`, a hit counts only when the characters around it are
 * not letters, digits or "_".
 */
import type { Span } from "../verdict.js";

export interface KeywordHit extends Span {
  /** Index of the keyword in the rule's list. */
  keyword: number;
}

interface Node {
  next: Map<number, Node>;
  fail: Node | undefined;
  /** Keyword indexes ending here, longest first (own, then along the fail chain). */
  outputs: number[];
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

/** The lower-case UTF-16 unit of `code` (itself when lower-casing would change the length). */
function fold(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
}

function foldText(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) out.push(fold(text.charCodeAt(i)));
  return out;
}

function isWordAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code >= 0xdc00 && code <= 0xdfff && index > 0)
    return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(index - 1) ?? code));
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(index) ?? code));
}

function newNode(): Node {
  return { next: new Map(), fail: undefined, outputs: [] };
}

export class KeywordMatcher {
  private readonly root = newNode();
  private readonly lengths: number[];

  constructor(
    keywords: readonly string[],
    private readonly wholeWord: boolean,
  ) {
    const folded = keywords.map(foldText);
    this.lengths = folded.map((k) => k.length);
    folded.forEach((keyword, index) => {
      if (keyword.length === 0) return;
      let node = this.root;
      for (const unit of keyword) {
        let child = node.next.get(unit);
        if (child === undefined) node.next.set(unit, (child = newNode()));
        node = child;
      }
      if (!node.outputs.some((k) => this.lengths[k] === keyword.length)) node.outputs.push(index);
    });
    this.link();
  }

  /** Breadth-first fail links; outputs inherit the fail node's (shorter) outputs. */
  private link(): void {
    const queue: Node[] = [];
    for (const child of this.root.next.values()) {
      child.fail = this.root;
      queue.push(child);
    }
    for (let at = 0; at < queue.length; at++) {
      const node = queue[at];
      if (node === undefined) break;
      for (const [unit, child] of node.next) {
        let fail = node.fail;
        while (fail !== undefined && !fail.next.has(unit)) fail = fail.fail;
        child.fail = fail?.next.get(unit) ?? this.root;
        child.outputs.push(...child.fail.outputs);
        queue.push(child);
      }
    }
  }

  find(text: string): KeywordHit[] {
    const candidates: KeywordHit[] = [];
    let node = this.root;
    for (let i = 0; i < text.length; i++) {
      const unit = fold(text.charCodeAt(i));
      while (node !== this.root && !node.next.has(unit)) node = node.fail ?? this.root;
      node = node.next.get(unit) ?? this.root;
      for (const keyword of node.outputs) {
        const end = i + 1;
        const start = end - (this.lengths[keyword] ?? 0);
        if (this.wholeWord && (isWordAt(text, start - 1) || isWordAt(text, end))) continue;
        candidates.push({ start, end, keyword });
      }
    }
    candidates.sort((a, b) => a.start - b.start || b.end - a.end);
    const hits: KeywordHit[] = [];
    let at = 0;
    for (const hit of candidates) {
      if (hit.start < at) continue;
      hits.push(hit);
      at = hit.end;
    }
    return hits;
  }
}
