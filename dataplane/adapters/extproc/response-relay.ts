import { sha256Hex } from "../../audit/audit-record.js";
import type { AppContext } from "../../app/context.js";
import { errorEnvelope, GatewayError, toGatewayError } from "../../core/errors.js";
import type { InferenceCall } from "../../core/inference-call.js";
import { formatSseEvent } from "../../upstream/sse-parser.js";
import {
  completionText,
  countTextTokens,
  estimatedUsage,
  promptText,
  usageFromUpstream,
} from "../../upstream/usage.js";
import { failCall } from "../http/compat/call-lifecycle.js";
import { guardrailTurn } from "../../core/turn-batch.js";
import { SseRelay } from "../../upstream/sse-relay.js";
import { relayedUpstreamError } from "../../upstream/upstream-failure.js";

export type ResponseKind = "sse" | "json" | "upstream_error" | "not_sse";

/** What to do with one chunk of the upstream's response. */
export type ChunkAnswer =
  | { kind: "replace"; body: Buffer }
  /** Answer the caller ourselves (nothing of the body has been released yet, or a reset). */
  | { kind: "immediate"; error: GatewayError };

const MAX_HELD = 64 * 1024 * 1024;

/**
 * The response half of one call through ext_proc. SSE is scanned and re-emitted chunk by chunk;
 * JSON (and a backend's 4xx) is held until its end, passed through the pipeline, and emitted
 * whole, as the REST path does. `finish` runs exactly once, through `onFinish`.
 */
export class ResponseRelay {
  private readonly sse: SseRelay | undefined;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private over = false;
  /** Part of the body arrived (so an exchange ending now cut it short). */
  sawBody = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly call: InferenceCall,
    readonly kind: ResponseKind,
    private readonly status: number,
    private readonly headers: Record<string, string>,
    private readonly onFinish: (work: () => Promise<unknown>) => Promise<void>,
  ) {
    this.sse =
      kind === "sse"
        ? new SseRelay(call, (part) => ctx.pipeline.openStreamFilter(call, part))
        : undefined;
  }

  get finished(): boolean {
    return this.over;
  }

  async chunk(body: Buffer, end: boolean): Promise<ChunkAnswer> {
    if (this.over) return { kind: "replace", body: Buffer.alloc(0) };
    if (body.length > 0) this.sawBody = true;
    if (this.sse) return this.sseChunk(this.sse, body, end);
    if (this.kind === "not_sse")
      return end ? this.notAStream() : { kind: "replace", body: Buffer.alloc(0) };
    this.heldBytes += body.length;
    if (this.heldBytes > MAX_HELD) {
      return this.fail(
        new GatewayError("upstream_unavailable", "backend error: response too large"),
      );
    }
    this.held.push(body);
    if (!end) return { kind: "replace", body: Buffer.alloc(0) };
    const raw = Buffer.concat(this.held).toString("utf8");
    this.held = [];
    return this.kind === "upstream_error" ? this.relayClientError(raw) : this.relayJson(raw);
  }

  private async sseChunk(sse: SseRelay, body: Buffer, end: boolean): Promise<ChunkAnswer> {
    // Filtered with the other streams' chunks of this turn (core/turn-batch.ts).
    let text = await guardrailTurn.run(() => sse.push(body));
    if (!sse.stopped && end) text += sse.end();
    const stop = sse.refused ?? sse.broken;
    if (stop) {
      const refusal = stop;
      const call = this.call;
      this.over = true;
      call.outcome = sse.refused ? "blocked" : "stream_failed";
      call.usage ??= estimatedUsage(countTextTokens(promptText(call.body)), sse.completionTokens);
      if (call.captureContent) call.responseContent = { text: sse.captured, interrupted: true };
      call.responseDigest = sse.responseDigest(false);
      await this.onFinish(() => failCall(this.ctx, call, refusal));
      text += formatSseEvent(JSON.stringify(errorEnvelope(refusal)));
    } else if (end) {
      const call = this.call;
      this.over = true;
      call.usage ??= estimatedUsage(countTextTokens(promptText(call.body)), sse.completionTokens);
      call.outcome = "completed";
      call.status = 200;
      call.responseDigest = sse.responseDigest(true);
      if (call.captureContent) call.responseContent = { text: sse.captured };
      await this.onFinish(() => this.ctx.pipeline.finish(call));
    }
    return { kind: "replace", body: Buffer.from(text, "utf8") };
  }

  /** A streamed request answered without an event stream: one error event, not an empty success. */
  private async notAStream(): Promise<ChunkAnswer> {
    const call = this.call;
    const error = new GatewayError(
      "upstream_unavailable",
      "backend error: the backend answered a streamed request without an event stream",
    );
    this.over = true;
    call.outcome = "stream_failed";
    call.usage ??= estimatedUsage(countTextTokens(promptText(call.body)), 0);
    const text = formatSseEvent(JSON.stringify(errorEnvelope(error)));
    call.responseDigest = sha256Hex(text);
    await this.onFinish(() => failCall(this.ctx, call, error));
    return { kind: "replace", body: Buffer.from(text, "utf8") };
  }

  private async relayJson(raw: string): Promise<ChunkAnswer> {
    const call = this.call;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return this.fail(
        new GatewayError(
          "upstream_unavailable",
          "backend error: the backend's response is not JSON",
        ),
      );
    }
    let out: Record<string, unknown>;
    try {
      out = await this.ctx.pipeline.transformResponse(call, json);
    } catch (err) {
      return this.fail(err);
    }
    call.usage =
      usageFromUpstream(json) ??
      estimatedUsage(countTextTokens(promptText(call.body)), countTextTokens(completionText(json)));
    // An answer no stage rewrote goes on as the backend sent it (not serialised again).
    const text = out === json ? raw : JSON.stringify(out);
    call.responseDigest = sha256Hex(text);
    if (call.captureContent) call.responseContent = out;
    call.outcome = "completed";
    call.status = 200;
    this.over = true;
    await this.onFinish(() => this.ctx.pipeline.finish(call));
    return { kind: "replace", body: Buffer.from(text, "utf8") };
  }

  private async relayClientError(raw: string): Promise<ChunkAnswer> {
    const relayed = relayedUpstreamError(this.status, this.headers, raw);
    this.call.outcome = "upstream_error";
    this.call.status = relayed.status;
    this.over = true;
    await this.onFinish(() => this.ctx.pipeline.finish(this.call));
    return { kind: "replace", body: Buffer.from(JSON.stringify(relayed.body), "utf8") };
  }

  /** The response cannot be completed: record it and let Envoy answer (or reset) the caller. */
  async fail(err: unknown): Promise<{ kind: "immediate"; error: GatewayError }> {
    this.over = true;
    let error = toGatewayError(err);
    await this.onFinish(async () => {
      error = await failCall(this.ctx, this.call, err);
    });
    return { kind: "immediate", error };
  }
}
