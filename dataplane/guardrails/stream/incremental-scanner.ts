import type { Span } from "../verdict.js";

/**
 * Scans a streamed text (a model's answer arriving in chunks) with any detector, so a value split
 * over two chunks is still caught.
 *
 * - It holds back at most `window` characters. Once more than that is pending it scans, then
 *   emits all but the last `window - step` characters (the look-ahead), unless a span crosses that
 *   cut, in which case the cut moves to the span's end (the span is emitted whole, redacted).
 *   So a value of up to `window - step` characters is caught whole wherever the chunks split it,
 *   and the detector runs about once per `step` characters, not once per chunk.
 * - Every emitted character was scanned with at least `window - step` characters of look-ahead
 *   (or the stream's end), and with up to `window` characters of already emitted text before it
 *   as context (so "phone: " in an earlier chunk still counts).
 * - A span with a `replacement` is emitted as that replacement; a span with `block` stops the
 *   stream: nothing more is emitted and every later call reports the block.
 * - A value longer than `window` can be emitted in parts: pick a window above the longest value
 *   the detector must catch whole.
 * - A cut never falls between the two halves of a surrogate pair.
 */

export interface ScanSpan extends Span {
  label: string;
  replacement?: string;
  /** Computes the replacement when the span is released (allocates a placeholder only then). */
  resolve?: () => string;
  block?: boolean;
}

export interface ScanResult {
  spans: ScanSpan[];
}

export interface IncrementalScannerOptions {
  /** The most characters ever held back. */
  window: number;
  /** How many characters to emit at least per scan; default a quarter of the window. */
  step?: number;
  scan: (text: string) => ScanResult;
}

export interface ScannerOutput {
  emit: string;
  /** Characters of the original text released so far. */
  consumed?: number;
  blocked?: { label: string };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export class IncrementalScanner {
  private readonly window: number;
  private readonly lookahead: number;
  private readonly scan: (text: string) => ScanResult;
  /** Already emitted original text kept as left context (at most `window` characters). */
  private context = "";
  /** Received but not yet emitted. */
  private pending = "";
  private blocked: { label: string } | undefined;
  private released = 0;

  constructor(options: IncrementalScannerOptions) {
    if (!Number.isInteger(options.window) || options.window < 1)
      throw new RangeError("window must be a positive integer");
    const step = options.step ?? Math.max(1, Math.floor(options.window / 4));
    if (!Number.isInteger(step) || step < 1 || step > options.window) {
      throw new RangeError("step must be an integer between 1 and window");
    }
    this.window = options.window;
    this.lookahead = options.window - step;
    this.scan = options.scan;
  }

  push(chunk: string): ScannerOutput {
    if (this.blocked !== undefined) return { emit: "", blocked: this.blocked };
    this.pending += chunk;
    if (this.pending.length <= this.window) return { emit: "" };
    return this.flush(false);
  }

  end(): ScannerOutput {
    if (this.blocked !== undefined) return { emit: "", blocked: this.blocked };
    return this.flush(true);
  }

  private flush(final: boolean): ScannerOutput {
    const offset = this.context.length;
    const text = this.context + this.pending;
    const spans = this.scan(text)
      .spans.filter((span) => span.end > offset && span.end > span.start)
      .sort((a, b) => a.start - b.start);
    const block = spans.find((span) => span.block === true);
    if (block !== undefined) {
      this.blocked = { label: block.label };
      this.pending = "";
      return { emit: "", blocked: this.blocked };
    }
    let cut = final ? text.length : text.length - this.lookahead;
    for (const span of spans) {
      if (span.start < cut && span.end > cut) cut = span.end;
    }
    if (!final && cut < text.length && cut > offset && isHighSurrogate(text.charCodeAt(cut - 1)))
      cut -= 1;
    if (cut <= offset) return { emit: "", consumed: this.released };

    const parts: string[] = [];
    let at = offset;
    for (const span of spans) {
      if (span.start >= cut) break;
      const from = Math.max(span.start, at);
      if (span.end <= from) continue;
      parts.push(text.slice(at, from), span.replacement ?? text.slice(from, span.end));
      at = span.end;
    }
    if (at < cut) parts.push(text.slice(at, cut));
    const emitted = text.slice(0, Math.max(cut, at));
    const consumed = Math.max(cut, at);
    this.released += consumed - offset;
    this.context = emitted.slice(Math.max(0, emitted.length - this.window));
    this.pending = text.slice(consumed);
    return { emit: parts.join(""), consumed: this.released };
  }
}
