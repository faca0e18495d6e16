import type { GatewayError } from "../core/errors.js";
import type { StreamPart, StreamTextFilter } from "../core/pipeline.js";

/** One log-probability entry as the upstream sent it (`logprobs.content[]` / `.refusal[]`). */
export type LogprobEntry = Record<string, unknown>;

export interface PartOutput {
  /** The text to send now (possibly redacted or restored). */
  text: string;
  /** The log-probability entries of the text released now, in order. */
  logprobs: LogprobEntry[];
  refusal?: GatewayError;
}

interface HeldUnit {
  /** Original characters of this part up to the end of the unit's text. */
  end: number;
  entries: LogprobEntry[];
}

/**
 * The output filter of one part of a streamed answer (a choice's content or refusal, or one tool
 * call's arguments) with the log probabilities of the text it still holds: entries go out in the
 * chunk that releases the last character of the text they came with. When the released text was
 * rewritten (a value redacted), its entries are merged into one entry carrying the released text,
 * so no original token reaches the caller.
 */
export class FilteredPart {
  /** Original text received and not yet released. */
  private held = "";
  private received = 0;
  private consumed = 0;
  private units: HeldUnit[] = [];
  ended = false;

  constructor(
    readonly part: StreamPart,
    private readonly filter: StreamTextFilter,
  ) {}

  /** `ahead`, `ends`: the rest of this part's text in the same read (StreamTextFilter.push). */
  push(text: string, entries: LogprobEntry[] | undefined, ahead = "", ends = false): PartOutput {
    this.received += text.length;
    this.held += text;
    if (entries !== undefined && entries.length > 0)
      this.units.push({ end: this.received, entries });
    const result = this.filter.push(text, ahead, ends);
    if (result.refusal) return { text: "", logprobs: [], refusal: result.refusal };
    return this.release(result.emit, result.consumed ?? this.received);
  }

  end(): PartOutput {
    this.ended = true;
    const result = this.filter.end();
    if (result.refusal) return { text: "", logprobs: [], refusal: result.refusal };
    return this.release(result.emit, this.received);
  }

  private release(emit: string, consumed: number): PartOutput {
    const original = this.held.slice(0, consumed - this.consumed);
    this.held = this.held.slice(consumed - this.consumed);
    this.consumed = consumed;
    const due: LogprobEntry[] = [];
    while (this.units.length > 0 && (this.units[0] as HeldUnit).end <= consumed)
      due.push(...(this.units.shift() as HeldUnit).entries);
    if (due.length === 0 || emit === original) return { text: emit, logprobs: due };
    const logprob = due.reduce(
      (sum, e) => sum + (typeof e.logprob === "number" ? e.logprob : 0),
      0,
    );
    const merged = {
      token: emit,
      logprob,
      bytes: [...Buffer.from(emit, "utf8")],
      top_logprobs: [],
    };
    return { text: emit, logprobs: emit.length > 0 ? [merged] : [] };
  }
}
