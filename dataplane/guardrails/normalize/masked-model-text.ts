/**
 * The model text (folded, then leetspeak-folded) of a text with some spans replaced by
 * placeholders, spliced from the model text of the unmasked text instead of folding the masked
 * text again. Folding is local: an ASCII character that is not white space folds the same whatever
 * surrounds it and leaves no state that changes how the next character folds, and leetspeak only
 * looks at the neighbours of a run of leet characters. So when every span starts and ends with
 * such a character, the placeholders are ASCII without white space or leet characters, and no
 * leet character touches a span in the folded text, the spliced text is exactly what folding the
 * masked text gives. Otherwise (or when the input was cut at the scan limit) it folds the masked
 * text as before.
 */
import type { FoldedText } from "./fold-characters.js";
import { isLeetCode } from "./leetspeak.js";
import { MAX_SCAN_CHARS, scanModelText, type ScanView } from "./scan-views.js";

export interface MaskSpan {
  start: number;
  end: number;
  /** ASCII text that replaces the span, e.g. "[EMAIL_ADDRESS]". */
  placeholder: string;
}

function isPlainAscii(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

function placeholderIsPlain(placeholder: string): boolean {
  for (let i = 0; i < placeholder.length; i++) {
    const c = placeholder.charCodeAt(i);
    if (!isPlainAscii(c) || isLeetCode(c)) return false;
  }
  return placeholder.length > 0;
}

/** First index of the folded text whose origin is at or after `offset`. */
function foldedIndex(folded: FoldedText, offset: number): number {
  const { origin } = folded;
  let lo = 0;
  let hi = origin.length - 1; // the last entry is the end of the input, not a character
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (origin[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The text with the spans (sorted, not overlapping) replaced by their placeholders. */
export function maskText(input: string, spans: readonly MaskSpan[]): string {
  let masked = "";
  let at = 0;
  for (const span of spans) {
    masked += `${input.slice(at, span.start)}${span.placeholder}`;
    at = span.end;
  }
  return masked + input.slice(at);
}

/** The spliced model text, or undefined when splicing could differ from folding again. */
export function splicedModelText(
  input: string,
  first: ScanView,
  spans: readonly MaskSpan[],
  maskedLength: number,
): string | undefined {
  const folded = first.folding;
  const model = first.modelText;
  if (folded === undefined || model === undefined) return undefined;
  if (input.length > MAX_SCAN_CHARS || maskedLength > MAX_SCAN_CHARS) return undefined;
  if (folded.inputLength !== input.length || model.length !== folded.text.length) return undefined;
  // Folding drops what exceeds 4 code units per input code unit; neither text may come near that.
  if (folded.text.length >= input.length * 4) return undefined;
  let out = "";
  let copied = 0;
  let length = folded.text.length;
  for (const span of spans) {
    if (span.end <= span.start || span.start < 0 || span.end > input.length) return undefined;
    if (!isPlainAscii(input.charCodeAt(span.start))) return undefined;
    if (!isPlainAscii(input.charCodeAt(span.end - 1))) return undefined;
    if (!placeholderIsPlain(span.placeholder)) return undefined;
    const from = foldedIndex(folded, span.start);
    const to = foldedIndex(folded, span.end);
    if (from < copied || folded.origin[from] !== span.start) return undefined;
    if (from > 0 && isLeetCode(folded.text.charCodeAt(from - 1))) return undefined;
    if (to < folded.text.length && isLeetCode(folded.text.charCodeAt(to))) return undefined;
    out += `${model.slice(copied, from)}${span.placeholder.toLowerCase()}`;
    length += span.placeholder.length - (to - from);
    copied = to;
  }
  if (length >= maskedLength * 4) return undefined;
  return out + model.slice(copied);
}

/**
 * The model text of `input` with `spans` (sorted, not overlapping) replaced by their
 * placeholders: the same string as scanModelText(maskText(input, spans)).
 */
export function maskedModelText(
  input: string,
  first: ScanView | undefined,
  spans: readonly MaskSpan[],
): string {
  let maskedLength = input.length;
  for (const span of spans) maskedLength += span.placeholder.length - (span.end - span.start);
  const spliced =
    first === undefined ? undefined : splicedModelText(input, first, spans, maskedLength);
  return spliced ?? scanModelText(maskText(input, spans));
}
