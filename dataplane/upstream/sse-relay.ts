import { createHash, type Hash } from "node:crypto";
import type { GatewayError } from "../core/errors.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { StreamTextFilter } from "../core/pipeline.js";
import { formatSseEvent, SseParser, type SseEvent } from "./sse-parser.js";
import { countTextTokens, usageFromUpstream } from "./usage.js";

const MAX_CAPTURE = 1024 * 1024;
const DONE = "data: [DONE]\n\n";

/**
 * Relays a streamed chat completion chunk by chunk, for REST and Envoy's ext_proc alike: SSE
 * events are parsed as they arrive, `delta.content` goes through the pipeline's stream filter, the
 * usage chunk the gateway asked for is hidden unless the caller asked for it too, and our own
 * `[DONE]` ends the stream. It keeps a digest of exactly what the caller got.
 */
export class SseRelay {
  refused: GatewayError | undefined;
  completionTokens = 0;
  captured = "";
  private readonly parser = new SseParser();
  private readonly digest: Hash = createHash("sha256");
  private readonly clientWantsUsage: boolean;

  constructor(
    private readonly call: InferenceCall,
    private readonly filter: StreamTextFilter,
  ) {
    this.clientWantsUsage =
      (call.body.stream_options as { include_usage?: boolean } | null | undefined)
        ?.include_usage === true;
  }

  /** The text to send the caller for one upstream chunk; stops at a refusal. */
  push(chunk: Uint8Array): string {
    let out = "";
    for (const event of this.parser.push(chunk)) {
      out += this.relayEvent(event);
      if (this.refused) break;
    }
    return this.emit(out);
  }

  /** The upstream ended: the rest of the events, the filter's tail, then `[DONE]`. */
  end(): string {
    let out = "";
    for (const event of this.parser.end()) {
      out += this.relayEvent(event);
      if (this.refused) return this.emit(out);
    }
    const tail = this.filter.end();
    if (tail.refusal) {
      this.refused = tail.refusal;
      return this.emit(out);
    }
    if (tail.emit) out += formatSseEvent(JSON.stringify(this.textChunk(tail.emit)));
    return this.emit(out) + DONE;
  }

  /** SHA-256 of what the caller got; with `done`, the final `[DONE]` is included. */
  responseDigest(done: boolean): string {
    const copy = this.digest.copy();
    if (done) copy.update(DONE);
    return copy.digest("hex");
  }

  private emit(text: string): string {
    this.digest.update(text);
    return text;
  }

  private relayEvent(event: SseEvent): string {
    if (event.data === "[DONE]") return "";
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      return formatSseEvent(event.data, event.event);
    }
    const usage = usageFromUpstream(json);
    if (usage) this.call.usage = usage;
    const choices = Array.isArray(json.choices) ? (json.choices as Record<string, unknown>[]) : [];
    if (usage && choices.length === 0 && !this.clientWantsUsage) return "";
    let changed = false;
    if (!this.clientWantsUsage && json.usage != null) {
      json = { ...json };
      delete json.usage;
      changed = true;
    }
    for (const choice of choices) {
      const delta = choice.delta as { content?: unknown } | undefined;
      if (typeof delta?.content !== "string") continue;
      this.completionTokens += countTextTokens(delta.content);
      const filtered = this.filter.push(delta.content);
      if (filtered.refusal) {
        this.refused = filtered.refusal;
        return "";
      }
      if (this.call.captureContent && this.captured.length < MAX_CAPTURE)
        this.captured += filtered.emit;
      if (filtered.emit !== delta.content) {
        delta.content = filtered.emit;
        changed = true;
      }
    }
    return changed
      ? formatSseEvent(JSON.stringify(json), event.event)
      : formatSseEvent(event.data, event.event);
  }

  private textChunk(text: string): Record<string, unknown> {
    return {
      id: `chatcmpl-${this.call.requestId}`,
      object: "chat.completion.chunk",
      created: Math.floor(this.call.startedAt / 1000),
      model: this.call.route?.model.name ?? this.call.requestedModel,
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
    };
  }
}
