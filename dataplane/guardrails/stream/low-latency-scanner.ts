import type { ScanResult, ScanSpan } from "./incremental-scanner.js";
import { ScanAhead } from "./scan-ahead.js";

/**
 * Scans a streamed text as it arrives and releases every character no detector could still extend
 * into a match (see hold-back.ts): prose goes out in the chunk that brought it; a tail that could
 * be the start of a value is held until the text after it shows where the value ends, then goes
 * out whole, redacted or not.
 *
 * - Span detectors (PII, custom rules) run on the held text with up to `context` characters of
 *   already released text before it, so a cue in an earlier chunk ("phone: ") still counts.
 * - Whole-text detectors (`wholeText`: content safety, token limits) judge the text so far: once
 *   it has `wholeTextStep` characters, then whenever it has grown by a quarter (at least
 *   `wholeTextStep`, at most `wholeTextMaxStep` characters), and at the end. A block stops the
 *   stream there: what was already released stays released, so at most `wholeTextMaxStep`
 *   characters go out after the text that tripped it.
 * - At most `maxHold` characters are held; a value longer than that can be released in parts.
 * - A cut never falls between the two halves of a surrogate pair.
 * - Text that came in one read from the upstream is scanned once, whole (`ahead`, scan-ahead.ts).
 */
export interface LowLatencyScannerOptions {
  scan: (text: string) => ScanResult;
  /** The earliest index >= from of text that could still be part of a match. */
  holdFrom: (text: string, from: number) => number;
  /** A block label when the text so far crosses a whole-text detector's threshold. */
  wholeText?: (text: string) => string | undefined;
  context?: number;
  maxHold?: number;
  wholeTextStep?: number;
  wholeTextMaxStep?: number;
}

export interface LowLatencyOutput {
  emit: string;
  /** Characters of the original text released so far (emitted, redacted or as they were). */
  consumed: number;
  blocked?: { label: string };
}

const MAX_SEEN = 1024 * 1024;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export class LowLatencyScanner {
  private readonly context: number;
  private readonly maxHold: number;
  private readonly step: number;
  private readonly maxStep: number;
  private released = "";
  private pending = "";
  private consumed = 0;
  private seen = "";
  private judged = 0;
  private blocked: { label: string } | undefined;
  private readonly ahead: ScanAhead;

  constructor(private readonly options: LowLatencyScannerOptions) {
    this.context = options.context ?? 256;
    this.maxHold = options.maxHold ?? 256;
    this.step = options.wholeTextStep ?? 512;
    this.maxStep = Math.max(this.step, options.wholeTextMaxStep ?? 1024);
    this.ahead = new ScanAhead(options.scan);
  }

  /**
   * `ahead`: the rest of this text that came in the same read, pushed next (never released now).
   * `ends`: the text ends with `ahead` (the read carries its end): nothing can grow past it.
   */
  push(chunk: string, ahead = "", ends = false): LowLatencyOutput {
    if (this.blocked) return this.stopped();
    this.pending += chunk;
    if (this.seen.length < MAX_SEEN) this.seen += chunk;
    const grown = this.seen.length - this.judged;
    const due = Math.min(this.maxStep, Math.max(this.step, this.judged / 4));
    // The last of the text (`ends`, nothing ahead): the whole-text check the end would make is
    // made now, on the same text, before this chunk's text goes out (as end() makes it before the
    // tail it holds goes out).
    const last = ends && ahead === "" && grown > 0;
    if ((grown >= due || last) && this.judgeWhole()) return this.stopped();
    return this.flush(false, ahead, ends);
  }

  end(): LowLatencyOutput {
    if (this.blocked) return this.stopped();
    if (this.judged < this.seen.length && this.judgeWhole()) return this.stopped();
    return this.flush(true, "");
  }

  private stopped(): LowLatencyOutput {
    return { emit: "", consumed: this.consumed, blocked: this.blocked };
  }

  private judgeWhole(): { label: string } | undefined {
    this.judged = this.seen.length;
    const label = this.options.wholeText?.(this.seen);
    if (label !== undefined) {
      this.blocked = { label };
      this.pending = "";
    }
    return this.blocked;
  }

  private flush(final: boolean, ahead: string, ends = false): LowLatencyOutput {
    const offset = this.released.length;
    const text = this.released + this.pending;
    if (this.pending.length === 0) return { emit: "", consumed: this.consumed };
    const found = this.ahead.spansOf(text, this.consumed - offset, ahead);
    const spans = (found ?? this.options.scan(text).spans)
      .filter((s) => s.end > offset && s.end > s.start)
      .sort((a, b) => a.start - b.start);
    const block = spans.find((s) => s.block === true);
    if (block !== undefined) {
      this.blocked = { label: block.label };
      this.pending = "";
      return this.stopped();
    }
    // The text's end is in hand (`ends`) and its spans are final: from a scan that holds the rest
    // (no span runs past this chunk), or, with nothing ahead, from a scan of all that is left.
    const settled = ends && (found !== undefined || ahead === "");
    const cut = final || settled ? text.length : this.cutAt(text, offset, spans);
    if (cut <= offset) return { emit: "", consumed: this.consumed };
    const { emit, upTo } = render(text, offset, cut, spans);
    this.consumed += upTo - offset;
    const emitted = text.slice(0, upTo);
    this.released = emitted.slice(Math.max(0, emitted.length - this.context));
    this.pending = text.slice(upTo);
    return { emit, consumed: this.consumed };
  }

  private cutAt(text: string, offset: number, spans: readonly ScanSpan[]): number {
    let cut = Math.max(offset, this.options.holdFrom(text, offset));
    const forced = text.length - cut > this.maxHold;
    if (forced) cut = text.length - this.maxHold;
    for (const span of spans) {
      if (span.start >= cut || span.end <= cut) continue;
      // A match reaching into the held tail may still grow: hold it whole (unless forced out).
      cut = forced ? span.end : Math.max(offset, span.start);
      if (!forced) break;
    }
    if (cut < text.length && cut > offset && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
    return cut;
  }
}

/** The text from `offset` to `cut` with spans replaced; a span crossing the cut is taken whole. */
function render(
  text: string,
  offset: number,
  cut: number,
  spans: readonly ScanSpan[],
): { emit: string; upTo: number } {
  const parts: string[] = [];
  let at = offset;
  for (const span of spans) {
    if (span.start >= cut) break;
    const from = Math.max(span.start, at);
    if (span.end <= from) continue;
    const replacement = span.resolve?.() ?? span.replacement;
    parts.push(text.slice(at, from), replacement ?? text.slice(from, span.end));
    at = span.end;
  }
  if (at < cut) parts.push(text.slice(at, cut));
  return { emit: parts.join(""), upTo: Math.max(cut, at) };
}
