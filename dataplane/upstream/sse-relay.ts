import { GatewayError } from "../core/errors.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { StreamPart, StreamTextFilter } from "../core/pipeline.js";
import { formatSseEvent, SseParser, type SseEvent } from "./sse-parser.js";
import { entriesOf, indexOf, isJson, type Json } from "./stream-chunk-json.js";
import { aheadKey, parseData, textAhead, type TextAhead } from "./text-ahead.js";
import { FilteredPart, type LogprobEntry, type PartOutput } from "./stream-part.js";
import { filterToolCalls } from "./tool-call-filter.js";
import { DeferredTokenCount } from "./deferred-token-count.js";
import { usageFromUpstream } from "./usage.js";
import { StreamDigest } from "./stream-digest.js";

const MAX_CAPTURE = 1024 * 1024;
const DONE = "data: [DONE]\n\n";
/** Fields of a chunk that identify it; a chunk the relay adds carries the upstream's. */
const META = ["id", "object", "created", "model", "system_fingerprint", "service_tier"];

type OpenFilter = (part: StreamPart) => StreamTextFilter;

/**
 * Relays a streamed chat completion chunk by chunk, for REST and Envoy's ext_proc alike. Each
 * choice's content and refusal, and each tool call's arguments, go through their own output filter
 * (one per part, so n > 1 and parallel tool calls never mix); log probabilities travel with their
 * text. What a filter still holds when its choice finishes goes out in a chunk of that choice, with
 * the upstream's id, created, model and system_fingerprint, right before the chunk carrying its
 * finish_reason. A chunk left with nothing but emptied text is dropped; `usage` is kept only when
 * the caller asked for it. Our own `[DONE]` ends the stream. A digest of exactly what the caller got
 * is kept.
 */
export class SseRelay {
  refused: GatewayError | undefined;
  /** The upstream's stream is unusable (not SSE, not JSON, cut before the end). */
  broken: GatewayError | undefined;
  captured = "";
  private readonly completionCount = new DeferredTokenCount();
  private readonly parser = new SseParser();
  private readonly digest = new StreamDigest();
  private readonly clientWantsUsage: boolean;
  private readonly openFilter: OpenFilter;
  private readonly parts = new Map<string, FilteredPart>();
  private readonly finished = new Set<number>();
  private readonly seen = new Set<number>();
  private lastMeta: Json = {};
  private usageKey = false;
  private events = 0;
  private sawDone = false;

  constructor(
    private readonly call: InferenceCall,
    filter: StreamTextFilter | OpenFilter,
  ) {
    this.openFilter = typeof filter === "function" ? filter : () => filter;
    this.clientWantsUsage =
      (call.body.stream_options as { include_usage?: boolean } | null | undefined)
        ?.include_usage === true;
  }

  /** Tokens of the completion text relayed so far, for an estimate when usage is not reported. */
  get completionTokens(): number {
    return this.completionCount.total;
  }

  get stopped(): boolean {
    return this.refused !== undefined || this.broken !== undefined;
  }

  /** The text to send the caller for one upstream chunk; stops at a refusal or a broken stream. */
  push(chunk: Uint8Array): string {
    let events: SseEvent[];
    try {
      events = this.parser.push(chunk);
    } catch {
      this.broken = badStream("an event larger than 4 MiB");
      return "";
    }
    return this.emit(this.relayEvents(events));
  }

  /**
   * The events of one read, in order, until a stop. All are parsed first, so each choice's text
   * goes through its filter with the rest of that choice's text in this read (`ahead`): what
   * arrived together is scanned together, and each chunk still carries its own text.
   */
  private relayEvents(events: readonly SseEvent[]): string {
    let out = "";
    const parsed = events.map(parseData);
    const ahead = textAhead(parsed);
    for (let i = 0; i < events.length; i++) {
      out += this.relayEvent(events[i] as SseEvent, parsed[i], ahead[i]);
      if (this.stopped) break;
    }
    return out;
  }

  /** The upstream ended: the rest of the events, held text, then `[DONE]`. */
  end(): string {
    let out = this.relayEvents(this.parser.end());
    if (this.stopped) return this.emit(out);
    for (const index of [...this.seen].sort((a, b) => a - b)) {
      out += this.flushChoice(index, this.lastMeta);
      if (this.stopped) return this.emit(out);
    }
    if (this.events === 0) this.broken = badStream("the backend's answer is not an event stream");
    else if (!this.sawDone && [...this.seen].some((i) => !this.finished.has(i)))
      this.broken = badStream("the stream ended before the answer was complete");
    if (this.broken) return this.emit(out);
    return this.emit(out) + DONE;
  }

  /** Text the gateway itself sends before the relayed events (counted in the digest). */
  preface(text: string): string {
    return this.emit(text);
  }

  /** SHA-256 of what the caller got; with `done`, the final `[DONE]` is included. */
  responseDigest(done: boolean): string {
    return this.digest.hex(done ? DONE : "");
  }

  private emit(text: string): string {
    this.digest.update(text);
    return text;
  }

  /** One event, `parsed` its data (parseData), `ahead` its choices' text ahead (textAhead). */
  private relayEvent(event: SseEvent, parsed: unknown, ahead: TextAhead | undefined): string {
    if (event.data === "[DONE]") {
      this.sawDone = true;
      return "";
    }
    if (!isJson(parsed)) {
      this.broken = badStream("the backend sent an event that is not JSON");
      return "";
    }
    this.events += 1;
    const json: Json = parsed;
    if (isJson(json.error)) {
      const message = typeof json.error.message === "string" ? json.error.message : "stream error";
      this.broken = new GatewayError("upstream_unavailable", `backend error: ${message}`);
      return "";
    }
    const usage = usageFromUpstream(json);
    if (usage) this.call.usage = usage;
    this.usageKey = "usage" in json;
    const meta: Json = {};
    for (const key of META) if (key in json) meta[key] = json[key];
    this.lastMeta = meta;
    const choices = Array.isArray(json.choices) ? json.choices.filter(isJson) : [];
    let changed = false;
    if (!this.clientWantsUsage && "usage" in json) {
      delete json.usage;
      changed = true;
      if (choices.length === 0) return "";
    }
    let before = "";
    const kept: Json[] = [];
    for (const choice of choices) {
      const result = this.relayChoice(choice, meta, ahead);
      if (this.stopped) return before;
      before += result.before;
      if (result.keep) kept.push(choice);
      changed ||= result.changed || !result.keep;
    }
    if (choices.length > 0 && kept.length === 0 && json.usage == null) return before;
    if (!changed) return before + formatSseEvent(event.data, event.event);
    json.choices = kept;
    return before + formatSseEvent(JSON.stringify(json), event.event);
  }

  private part(choice: number, field: StreamPart["field"], tool?: number): FilteredPart {
    const key = `${choice}:${field}:${tool ?? ""}`;
    let part = this.parts.get(key);
    if (part === undefined) {
      const which: StreamPart = tool === undefined ? { choice, field } : { choice, field, tool };
      part = new FilteredPart(which, this.openFilter(which));
      this.parts.set(key, part);
    }
    return part;
  }

  private pushText(
    part: FilteredPart,
    text: string,
    entries?: LogprobEntry[],
    ahead = "",
    ends = false,
  ): PartOutput {
    this.completionCount.add(text);
    const out = part.push(text, entries, ahead, ends);
    if (out.refusal) this.refused = out.refusal;
    if (part.part.field === "content" && this.call.captureContent) this.capture(out.text);
    return out;
  }

  private capture(text: string): void {
    if (this.captured.length < MAX_CAPTURE) this.captured += text;
  }

  /** Filters one choice of a chunk in place; `before` is a flush chunk to send ahead of it. */
  private relayChoice(
    choice: Json,
    meta: Json,
    ahead: TextAhead | undefined,
  ): { before: string; keep: boolean; changed: boolean } {
    const index = indexOf(choice);
    this.seen.add(index);
    const delta = isJson(choice.delta) ? choice.delta : {};
    let changed = false;
    // Whether the filters emptied a text the upstream sent, and whether anything is left.
    let emptied = false;
    let left = false;
    let logprobs: Json | undefined;
    for (const field of ["content", "refusal"] as const) {
      const text = delta[field];
      if (typeof text !== "string") continue;
      const entries = entriesOf(choice.logprobs, field);
      const rest = ahead?.get(aheadKey(index, field));
      const out = this.pushText(this.part(index, field), text, entries, rest?.text, rest?.ends);
      if (this.refused) return { before: "", keep: false, changed: true };
      if (out.text !== text || (entries?.length ?? 0) !== out.logprobs.length) changed = true;
      delta[field] = out.text;
      if (out.text !== "" || text === "") left = true;
      else emptied = true;
      if (entries !== undefined || out.logprobs.length > 0) {
        logprobs ??= isJson(choice.logprobs) ? { ...choice.logprobs } : { refusal: null };
        logprobs[field] = out.logprobs;
        if (out.logprobs.length > 0) left = true;
      }
    }
    if (logprobs !== undefined) choice.logprobs = logprobs;
    if (Array.isArray(delta.tool_calls)) {
      const calls = filterToolCalls(
        delta.tool_calls.filter(isJson),
        (tool, args) => this.pushText(this.part(index, "arguments", tool), args),
        () => this.refused !== undefined,
      );
      if (this.refused) return { before: "", keep: false, changed: true };
      if (calls.changed) changed = true;
      if (calls.kept.length > 0) {
        delta.tool_calls = calls.kept;
        left = true;
      } else {
        delete delta.tool_calls;
        emptied = true;
      }
    }
    const others = Object.keys(delta).some(
      (k) => !["content", "refusal", "tool_calls"].includes(k),
    );
    let before = "";
    if (choice.finish_reason != null) {
      before = this.flushChoice(index, meta);
      this.finished.add(index);
    }
    const keep = left || !emptied || others || choice.finish_reason != null;
    return { before, keep, changed };
  }

  /** Sends what the choice's filters still hold, in one chunk of that choice. */
  private flushChoice(index: number, meta: Json): string {
    const delta: Json = {};
    const logprobs: Json = { content: null, refusal: null };
    let hasLogprobs = false;
    const toolCalls: Json[] = [];
    for (const part of this.parts.values()) {
      if (part.part.choice !== index || part.ended) continue;
      const out = part.end();
      if (out.refusal) {
        this.refused = out.refusal;
        return "";
      }
      if (part.part.field === "content" && this.call.captureContent) this.capture(out.text);
      if (out.text === "") continue;
      if (part.part.field === "arguments")
        toolCalls.push({ index: part.part.tool ?? 0, function: { arguments: out.text } });
      else delta[part.part.field] = out.text;
      if (out.logprobs.length > 0 && part.part.field !== "arguments") {
        logprobs[part.part.field] = out.logprobs;
        hasLogprobs = true;
      }
    }
    if (toolCalls.length > 0) delta.tool_calls = toolCalls;
    if (Object.keys(delta).length === 0) return "";
    const chunk: Json = {
      ...meta,
      choices: [{ index, delta, logprobs: hasLogprobs ? logprobs : null, finish_reason: null }],
    };
    if (this.clientWantsUsage && this.usageKey) chunk.usage = null;
    return formatSseEvent(JSON.stringify(chunk));
  }
}

function badStream(what: string): GatewayError {
  return new GatewayError("upstream_unavailable", `backend error: ${what}`);
}
