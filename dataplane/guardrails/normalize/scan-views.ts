/**
 * The views of a text that detectors scan: the folded text, its leetspeak-folded and spelled-out
 * variants when they differ, and the folded text of every decoded payload. Offsets found in any
 * view map back to the original text through `spanInInput`.
 */
import { foldText, originalSpan, type FoldedText } from "./fold-characters.js";
import { foldLeetspeak, foldLeetspeakRuns, joinSpelledOut } from "./leetspeak.js";
import { INDEX_BASE, type IndexBase } from "./word-anchors.js";
import { decodePayloads, MAX_PAYLOAD_CHARS, type PayloadEncoding } from "./decode-payloads.js";

export type ViewKind = "folded" | "leetspeak" | "spelled_out" | "unicode_tags" | PayloadEncoding;

export interface ScanView {
  kind: ViewKind;
  text: string;
  /**
   * Only on the first ("folded") view: the whole folded and leetspeak-folded text, which is what
   * the classifiers read. (The leetspeak view itself holds only the windows around changes.)
   */
  modelText?: string;
  /** Only on the first view: the folding of the input (with its origin map) it was made from. */
  folding?: FoldedText;
  /** Map a [start, end) span of `text` to the original input. */
  spanInInput(start: number, end: number): { start: number; end: number };
}

/** Input beyond this many UTF-16 code units is not scanned by the pattern detectors. */
export const MAX_SCAN_CHARS = 256 * 1024;

/**
 * A view whose offsets map back through a folding. A class, so that no closure (and, under
 * esbuild's keepNames, no defineProperty naming it) is made per view and call.
 */
class MappedView implements ScanView {
  declare modelText?: string;
  declare folding?: FoldedText;
  readonly #mapping: FoldedText;

  constructor(
    readonly kind: ViewKind,
    mapping: FoldedText,
    readonly text: string = mapping.text,
  ) {
    this.#mapping = mapping;
  }

  spanInInput(start: number, end: number): { start: number; end: number } {
    return originalSpan(this.#mapping, start, end);
  }
}

function viewOf(kind: ViewKind, folded: FoldedText, text = folded.text): ScanView {
  return new MappedView(kind, folded, text);
}

/** Characters kept on each side of a leetspeak change: longer than any pattern needs. */
const LEET_WINDOW = 160;

/**
 * The leetspeak view holds only windows around the characters leetspeak folding changed (joined by
 * newlines), so ordinary text with a stray "1st" or "mp3" costs little to rescan. Its word index is
 * derived from the folded view's (see IndexBase in word-anchors.ts).
 */
function leetWindows(
  folded: FoldedText,
  foldedView: ScanView,
  leet: string,
  changed: [number, number][],
): ScanView {
  const ranges: [number, number][] = [];
  for (const [first, end] of changed) {
    // The union of the windows around every changed character of the run.
    const from = Math.max(0, first - LEET_WINDOW);
    const to = Math.min(leet.length, end - 1 + LEET_WINDOW);
    const last = ranges[ranges.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  let size = 1;
  for (const [from, to] of ranges) size += to - from + 1;
  const origin = new Int32Array(Math.max(1, size - 1));
  let text = "";
  let at = 0;
  // Where the view equals the folded text: each window minus the runs leetspeak changed.
  const stretches: number[] = [];
  let run = 0;
  for (const [from, to] of ranges) {
    if (text.length > 0) {
      text += "\n";
      origin[at++] = folded.origin[from]!;
    }
    text += leet.slice(from, to);
    origin.set(folded.origin.subarray(from, to), at);
    let same = from;
    for (; run < changed.length && changed[run]![0] < to; run++) {
      const [first, end] = changed[run]!;
      if (first > same) stretches.push(at + same - from, same, first - same);
      same = end;
    }
    if (to > same) stretches.push(at + same - from, same, to - same);
    at += to - from;
  }
  origin[at] = folded.inputLength;
  const view = viewOf("leetspeak", { text, origin, inputLength: folded.inputLength });
  const base: IndexBase = {
    text: folded.text,
    owner: foldedView,
    stretches: new Int32Array(stretches),
  };
  return Object.assign(view, { [INDEX_BASE]: base });
}

/**
 * Text smuggled in Unicode tag characters (U+E0020..U+E007E mirror printable ASCII and render as
 * nothing). Returns the hidden ASCII and its span, or undefined when fewer than 4 are present.
 */
export function hiddenTagText(
  input: string,
): { text: string; start: number; end: number } | undefined {
  let text = "";
  let start = -1;
  let end = -1;
  for (let i = input.indexOf("\udb40"); i >= 0 && i < input.length; i++) {
    if (input.charCodeAt(i) !== 0xdb40) {
      i = input.indexOf("\udb40", i) - 1;
      if (i < 0) break;
      continue;
    }
    const cp = input.codePointAt(i)!;
    if (cp >= 0xe0020 && cp <= 0xe007e && text.length < MAX_PAYLOAD_CHARS) {
      text += String.fromCharCode(cp - 0xe0000);
      if (start < 0) start = i;
      end = i + 2;
    }
    i++;
  }
  return text.length >= 4 ? { text, start, end } : undefined;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** A view's word count, kept on the view once counted. */
const WORD_COUNT = Symbol("word count");
type Counted = ScanView & { [WORD_COUNT]?: number };

function isLetterOrDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return LETTER_OR_DIGIT.test(String.fromCodePoint(text.codePointAt(i)!));
}

/**
 * Number of words (runs of letters and digits, as /[\p{L}\p{N}]+/gu finds them) in a view's
 * text, counted once per view without building the list.
 */
export function wordCount(view: ScanView | undefined): number {
  if (view === undefined) return 0;
  const cached = (view as Counted)[WORD_COUNT];
  if (cached !== undefined) return cached;
  const text = view.text;
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    if (c < 128) word = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
    else {
      word = isLetterOrDigit(text, i);
      if (c >= 0xd800 && c <= 0xdbff && text.codePointAt(i)! > 0xffff) i++;
    }
    if (word && !inWord) count++;
    inWord = word;
  }
  if (Object.isExtensible(view)) (view as Counted)[WORD_COUNT] = count;
  return count;
}

/** The first view's `modelText` of `input`, without building the other views. */
export function scanModelText(input: string): string {
  return foldLeetspeak(foldText(input, MAX_SCAN_CHARS).text);
}

export function buildScanViews(input: string): ScanView[] {
  const folded = foldText(input, MAX_SCAN_CHARS);
  const changed: [number, number][] = [];
  const leet = foldLeetspeakRuns(folded.text, changed);
  const first = new MappedView("folded", folded);
  first.modelText = leet;
  first.folding = folded;
  const views: ScanView[] = [first];
  if (folded.words !== undefined) (views[0] as Counted)[WORD_COUNT] = folded.words;
  if (changed.length > 0) views.push(leetWindows(folded, views[0]!, leet, changed));
  const spelled = joinSpelledOut(folded);
  if (spelled !== undefined) views.push(viewOf("spelled_out", spelled));
  const hidden = hiddenTagText(input.slice(0, MAX_SCAN_CHARS));
  if (hidden !== undefined) {
    const whole = { start: hidden.start, end: hidden.end };
    views.push({
      kind: "unicode_tags",
      text: foldLeetspeak(foldText(hidden.text).text),
      spanInInput: () => whole,
    });
  }
  for (const payload of decodePayloads(input.slice(0, MAX_SCAN_CHARS))) {
    const inner = foldText(payload.text);
    const whole = { start: payload.start, end: payload.end };
    views.push({
      kind: payload.encoding,
      text: foldLeetspeak(inner.text),
      spanInInput: () => whole,
    });
  }
  return views;
}
