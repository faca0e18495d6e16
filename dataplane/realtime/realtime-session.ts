import type { WebSocket } from "ws";
import type { AppContext } from "../app/context.js";
import { GatewayError, toGatewayError } from "../core/errors.js";
import type { InferenceCall } from "../core/inference-call.js";
import { guardTexts } from "./realtime-guard.js";
import {
  finishRealtimeCall,
  meterResponseUsage,
  newResponseCall,
  type UsageTotals,
} from "./realtime-response-call.js";
import { guardOutputEvent, type ResponseState } from "./realtime-output.js";
import {
  OUTPUT_DELTAS,
  OUTPUT_DONES,
  clientTexts,
  errorEvent,
  parseEvent,
  type RealtimeEvent,
} from "./realtime-events.js";
import { CLOSE, SocketPair, type Closer, type SessionLimits } from "./realtime-sockets.js";

/**
 * One realtime session: relays a client's WebSocket to the backend's and back. Client text goes
 * through the request guardrails (a block is an `error` event and the text is not sent on); every
 * `response.create` is admitted like a call (tokens, budget); response text and audio transcripts
 * go through the output guardrails (a block is an `error` event plus `response.cancel` to the
 * backend); each `response.done` is metered and audited; the session itself is one audit record.
 * Audio passes through untouched.
 */
export class RealtimeSession {
  private readonly responses = new Map<string, ResponseState>();
  private readonly awaiting: InferenceCall[] = [];
  private readonly totals: UsageTotals = { prompt: 0, completion: 0, total: 0 };
  private clientChain: Promise<void> = Promise.resolve();
  private backendChain: Promise<void> = Promise.resolve();
  private ended = false;
  private readonly sockets: SocketPair;
  private readonly done: Promise<void>;
  private resolveDone: () => void = () => undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly client: WebSocket,
    private readonly backend: WebSocket,
    private readonly session: InferenceCall,
    limits: SessionLimits,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.sockets = new SocketPair(client, backend, limits, (code, reason) =>
      this.end("gateway", code, reason),
    );
  }

  /** Starts relaying; resolves once both sides are closed and the session is recorded. */
  run(): Promise<void> {
    const { client, backend } = this;
    client.on("message", (data, isBinary) => {
      const text = isBinary ? undefined : data.toString();
      this.clientChain = this.clientChain
        .then(() => this.fromClient(text))
        .catch((err) => this.fail(err));
    });
    backend.on("message", (data, isBinary) => {
      this.sockets.touch();
      if (isBinary) {
        this.toClient(data as Buffer);
        return;
      }
      const text = data.toString();
      this.backendChain = this.backendChain
        .then(() => this.fromBackend(text))
        .catch((err) => this.fail(err));
    });
    client.on("close", (code, reason) => this.end("client", code, reason.toString()));
    backend.on("close", (code, reason) => this.end("backend", code, reason.toString()));
    client.on("error", () => this.end("client", CLOSE.backendError, "client socket error"));
    backend.on("error", () => this.end("backend", CLOSE.backendError, "backend socket error"));
    this.sockets.startTimers();
    backend.resume();
    return this.done;
  }

  /** Ends the session from the gateway's side (shutdown). */
  close(code: number, reason: string): void {
    this.end("gateway", code, reason);
  }

  private async fromClient(text: string | undefined): Promise<void> {
    this.sockets.touch();
    if (this.ended) return;
    if (text === undefined) {
      this.toClient(
        errorEvent(
          new GatewayError("invalid_request", "binary frames are not supported; send JSON events"),
        ),
      );
      return;
    }
    const event = parseEvent(text);
    if (!event) {
      this.toClient(
        errorEvent(
          new GatewayError("invalid_json", "each message must be a JSON object with a string type"),
        ),
      );
      return;
    }
    const slots = clientTexts(event);
    let outgoing = text;
    if (slots.length > 0) {
      try {
        const changed = await guardTexts(this.ctx, this.session, slots);
        if (changed) outgoing = JSON.stringify(event);
      } catch (err) {
        this.toClient(errorEvent(toGatewayError(err), event.event_id));
        return;
      }
    }
    if (event.type === "response.create") {
      const admitted = await this.admitResponse(event);
      if (!admitted) return;
    }
    this.toBackend(outgoing);
  }

  /** Admits a response like a call (tokens, budget); false when refused (and said so). */
  private async admitResponse(event: RealtimeEvent): Promise<boolean> {
    const call = this.responseCall(event);
    try {
      await this.ctx.pipeline.admit(call);
      this.awaiting.push(call);
      return true;
    } catch (err) {
      const error = toGatewayError(err);
      await finishRealtimeCall(
        this.ctx,
        call,
        error.type === "guardrail_violation" ? "blocked" : "rate_limited",
        error,
      );
      this.toClient(errorEvent(error, event.event_id));
      if (error.status === 429 || error.status === 402) {
        this.end("gateway", CLOSE.policy, error.code);
      }
      return false;
    }
  }

  private async fromBackend(text: string): Promise<void> {
    if (this.ended) return;
    const event = parseEvent(text);
    if (!event) {
      this.toClient(text);
      return;
    }
    const type = String(event.type);
    if (type === "response.created") {
      await this.responseCreated(event);
      this.toClient(text);
      return;
    }
    if (type in OUTPUT_DELTAS || type in OUTPUT_DONES) {
      this.outputText(event, type);
      return;
    }
    if (type === "conversation.item.input_audio_transcription.completed") {
      await this.inputTranscript(event);
      return;
    }
    if (type === "response.done") {
      await this.responseDone(event);
      this.toClient(text);
      return;
    }
    this.toClient(text);
  }

  private async responseCreated(event: RealtimeEvent): Promise<void> {
    const id = String((event.response as { id?: unknown } | undefined)?.id ?? "");
    let call = this.awaiting.shift();
    if (!call) {
      // A response the backend started by itself (server-side turn detection): admit it now.
      call = this.responseCall(undefined);
      try {
        await this.ctx.pipeline.admit(call);
      } catch (err) {
        const error = toGatewayError(err);
        await finishRealtimeCall(this.ctx, call, "rate_limited", error);
        this.toClient(errorEvent(error));
        this.toBackend(JSON.stringify({ type: "response.cancel", response_id: id }));
        if (error.status === 429 || error.status === 402)
          this.end("gateway", CLOSE.policy, error.code);
        return;
      }
    }
    if (call.realtime) call.realtime.responseId = id;
    this.responses.set(id, { call, filters: new Map(), emitted: new Map(), blocked: false });
  }

  private outputText(event: RealtimeEvent, type: string): void {
    const state = this.responses.get(String(event.response_id ?? ""));
    if (!state) {
      this.toClient(JSON.stringify(event));
      return;
    }
    const out = guardOutputEvent(state, event, type, () =>
      this.ctx.pipeline.openStreamFilter(state.call),
    );
    for (const e of out.send) this.toClient(e);
    if (out.refusal) this.block(state, event, out.refusal);
  }

  private block(state: ResponseState, event: RealtimeEvent, refusal: GatewayError): void {
    state.blocked = true;
    state.call.error = refusal;
    this.toClient(errorEvent(refusal));
    this.toBackend(JSON.stringify({ type: "response.cancel", response_id: event.response_id }));
  }

  private async inputTranscript(event: RealtimeEvent): Promise<void> {
    const transcript = typeof event.transcript === "string" ? event.transcript : "";
    const slot = { text: transcript, set: (t: string) => (event.transcript = t) };
    try {
      await guardTexts(this.ctx, this.session, [slot]);
      this.toClient(JSON.stringify(event));
    } catch (err) {
      this.toClient(errorEvent(toGatewayError(err)));
      this.toBackend(JSON.stringify({ type: "response.cancel" }));
    }
  }

  private async responseDone(event: RealtimeEvent): Promise<void> {
    const id = String((event.response as { id?: unknown } | undefined)?.id ?? "");
    const state = this.responses.get(id);
    if (!state) return;
    this.responses.delete(id);
    meterResponseUsage(state.call, event, this.totals);
    await finishRealtimeCall(
      this.ctx,
      state.call,
      state.blocked ? "blocked" : "completed",
      state.call.error,
    );
  }

  private responseCall(event: RealtimeEvent | undefined): InferenceCall {
    const sequence = this.responses.size + this.awaiting.length + 1;
    return newResponseCall(this.ctx, this.session, sequence, event);
  }

  private toClient(data: string | Buffer): void {
    this.sockets.toClient(data);
  }

  private toBackend(data: string): void {
    this.sockets.toBackend(data);
  }

  private fail(err: unknown): void {
    this.ctx.logger.error(
      { request_id: this.session.requestId, err: String(err) },
      "realtime session relay failed",
    );
    this.end("gateway", CLOSE.backendError, "internal error");
  }

  private end(by: Closer, code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    const safeReason = reason.slice(0, 120);
    this.sockets.closeFrom(by, code, safeReason);
    void this.record(by, code, safeReason).finally(() => this.resolveDone());
  }

  private async record(by: Closer, code: number, reason: string): Promise<void> {
    await Promise.allSettled([this.clientChain, this.backendChain]);
    for (const call of this.awaiting.splice(0))
      await finishRealtimeCall(this.ctx, call, "client_aborted", undefined);
    for (const [id, state] of this.responses) {
      this.responses.delete(id);
      await finishRealtimeCall(
        this.ctx,
        state.call,
        by === "client" ? "client_aborted" : "stream_failed",
        state.call.error,
      );
    }
    const s = this.session;
    // The responses were metered one by one; the session's record gives the totals only.
    if (s.realtime) s.realtime.closed = { by, code, reason, totals: { ...this.totals } };
    await finishRealtimeCall(this.ctx, s, "completed", undefined);
  }
}
