/**
 * The views of a text that detectors scan: the folded text, its leetspeak-folded and spelled-out
 * variants when they differ, and the folded text of every decoded payload. Offsets found in any
 * view map back to the original text through `spanInInput`.
 */
import { foldText, originalSpan, type FoldedText } from "./fold-characters.js";
import { foldLeetspeak, joinSpelledOut } from "./leetspeak.js";
import { decodePayloads, MAX_PAYLOAD_CHARS, type PayloadEncoding } from "./decode-payloads.js";

export type ViewKind = "folded" | "leetspeak" | "spelled_out" | "unicode_tags" | PayloadEncoding;

export interface ScanView {
  kind: ViewKind;
  text: string;
  /** Map a [start, end) span of `text` to the original input. */
  spanInInput(start: number, end: number): { start: number; end: number };
}

/** Input beyond this many UTF-16 code units is not scanned by the pattern detectors. */
export const MAX_SCAN_CHARS = 256 * 1024;

function viewOf(kind: ViewKind, folded: FoldedText, text = folded.text): ScanView {
  return { kind, text, spanInInput: (s, e) => originalSpan(folded, s, e) };
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
  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) !== 0xdb40) continue;
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

export function buildScanViews(input: string): ScanView[] {
  const folded = foldText(input, MAX_SCAN_CHARS);
  const views: ScanView[] = [viewOf("folded", folded)];
  const leet = foldLeetspeak(folded.text);
  if (leet !== folded.text) views.push(viewOf("leetspeak", folded, leet));
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
