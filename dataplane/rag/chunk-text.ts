import { countTokens } from "gpt-tokenizer";
import type { Section } from "./extract-text.js";

/** A chunk before it is scanned and stored. */
export interface ChunkDraft {
  text: string;
  heading: string | null;
  page: number | null;
  tokenCount: number;
}

export interface ChunkOptions {
  sizeTokens: number;
  overlapTokens: number;
}

interface Piece {
  text: string;
  tokens: number;
  page: number | null;
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+["')\]]*)?[^\S\n]*\n*|[.!?\n]+[^\S\n]*\n*/g;
const WORD = /\S+\s*/g;

/**
 * Splits a text into sentence-sized pieces, a piece over `max` tokens into words, and a word over
 * `max` tokens into character runs. The tokenizer never sees a run much longer than a chunk (BPE on
 * one long unbroken string costs far more than linear time).
 */
function pieces(text: string, page: number | null, max: number): Piece[] {
  const out: Piece[] = [];
  const maxChars = max * 8;
  for (const sentence of text.match(SENTENCE) ?? []) {
    const tokens = sentence.length <= maxChars ? countTokens(sentence) : Infinity;
    if (tokens <= max) {
      out.push({ text: sentence, tokens, page });
      continue;
    }
    for (const word of sentence.match(WORD) ?? []) {
      if (word.length <= maxChars) {
        const wordTokens = countTokens(word);
        if (wordTokens <= max) {
          out.push({ text: word, tokens: wordTokens, page });
          continue;
        }
      }
      // One "word" longer than a chunk (a data blob): cut by characters.
      for (let i = 0; i < word.length; i += max) cutToFit(word.slice(i, i + max), max, page, out);
    }
  }
  return out;
}

/** A run of at most `max` characters, halved until each part is at most `max` tokens. */
function cutToFit(run: string, max: number, page: number | null, out: Piece[]): void {
  const tokens = countTokens(run);
  if (tokens <= max || run.length <= 1) {
    out.push({ text: run, tokens, page });
    return;
  }
  const half = Math.ceil(run.length / 2);
  cutToFit(run.slice(0, half), max, page, out);
  cutToFit(run.slice(half), max, page, out);
}

/**
 * Chunks of at most `sizeTokens` tokens (counted with the gateway's tokenizer), cut at sentence
 * boundaries where one fits, consecutive chunks sharing up to `overlapTokens` tokens of whole
 * sentences. A heading starts a new chunk (chunks never mix sections, so a chunk's heading is
 * exact); PDF pages do not, and a chunk's page is the page it starts on.
 */
export function chunkSections(sections: readonly Section[], opts: ChunkOptions): ChunkDraft[] {
  const drafts: ChunkDraft[] = [];
  let group: { heading: string | null; pieces: Piece[] } | undefined;
  const flushGroup = () => {
    if (group) drafts.push(...packPieces(group.pieces, group.heading, opts));
  };
  for (const section of sections) {
    if (!group || group.heading !== section.heading || section.page === null) {
      flushGroup();
      group = { heading: section.heading, pieces: [] };
    }
    if (group.pieces.length > 0) {
      const last = group.pieces[group.pieces.length - 1] as Piece;
      if (!/\s$/.test(last.text)) last.text += "\n";
    }
    group.pieces.push(...pieces(section.text, section.page, opts.sizeTokens));
  }
  flushGroup();
  return drafts;
}

function packPieces(all: Piece[], heading: string | null, opts: ChunkOptions): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  let start = 0;
  while (start < all.length) {
    let end = start;
    let tokens = 0;
    while (
      end < all.length &&
      (end === start || tokens + (all[end] as Piece).tokens <= opts.sizeTokens)
    ) {
      tokens += (all[end] as Piece).tokens;
      end++;
    }
    const text = all
      .slice(start, end)
      .map((p) => p.text)
      .join("")
      .trim();
    if (text !== "") {
      out.push({ text, heading, page: (all[start] as Piece).page, tokenCount: countTokens(text) });
    }
    if (end >= all.length) break;
    // The next chunk repeats the last whole pieces worth at most overlapTokens (and always moves on).
    let next = end;
    let overlap = 0;
    while (next - 1 > start && overlap + (all[next - 1] as Piece).tokens <= opts.overlapTokens) {
      overlap += (all[next - 1] as Piece).tokens;
      next--;
    }
    start = next;
  }
  return out;
}
