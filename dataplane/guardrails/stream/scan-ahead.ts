import type { ScanResult, ScanSpan } from "./incremental-scanner.js";

/**
 * One scan of a streamed part's text together with the text that came after it in the same read
 * from the upstream (`ahead`), reused by every push of that read: chunks that arrived together
 * cost one scan, not one each.
 *
 * Positions are absolute (characters of the part since its start). A window is answered from the
 * scan only when the scanned text holds it exactly; a span crossing the window's end (a value the
 * window holds only the start of) sends the caller back to scanning the window itself, as it
 * would without a look-ahead. A block anywhere in the scanned text blocks the window at once: text
 * that arrived with the cause of a block is not released.
 *
 * Where a window's tail could still be growing into a value is left to the caller, window by
 * window (the text ahead would often release it sooner, but chunks then change shape).
 */
export class ScanAhead {
  #start = 0;
  #text = "";
  #spans: ScanSpan[] = [];
  #live = false;

  constructor(private readonly scan: (text: string) => ScanResult) {}

  /**
   * The spans of `text`, which starts at absolute position `start`, with positions relative to
   * it; undefined when the scan cannot answer (the caller scans `text` itself).
   */
  spansOf(text: string, start: number, ahead: string): ScanSpan[] | undefined {
    if (ahead !== "" && !this.#holds(start, text.length + ahead.length)) {
      const whole = text + ahead;
      this.#spans = this.scan(whole).spans;
      this.#start = start;
      this.#text = whole;
      this.#live = true;
    }
    if (!this.#holds(start, text.length) || !this.#text.startsWith(text, start - this.#start)) {
      this.#live = false;
      return undefined;
    }
    const shift = start - this.#start;
    const spans: ScanSpan[] = [];
    for (const span of this.#spans) {
      if (span.block === true) return [{ ...span, start: 0, end: text.length }];
      const from = span.start - shift;
      const to = span.end - shift;
      if (from >= text.length) continue;
      if (to > text.length) return undefined;
      spans.push({ ...span, start: from, end: to });
    }
    return spans;
  }

  #holds(start: number, length: number): boolean {
    return this.#live && start >= this.#start && start + length <= this.#start + this.#text.length;
  }
}
