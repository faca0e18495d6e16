import { performance } from "node:perf_hooks";
import {
  type CommonResponse,
  type DeepPartial,
  type HttpBody,
  type HttpHeaders,
  type ProcessingRequest,
  ProcessingResponse,
} from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import type { AppContext } from "../../app/context.js";
import { GatewayError, toGatewayError } from "../../core/errors.js";
import type { InferenceCall } from "../../core/inference-call.js";
import { failCall } from "../http/compat/call-lifecycle.js";
import { answerFromCache } from "../http/compat/relay-cached.js";
import { upstreamFailure } from "../../upstream/upstream-failure.js";
import { requestIdFrom } from "../http/request-id.js";
import { isUndecided, undecidedError, withinDeadline } from "../grpc/decision-deadline.js";
import type { EnvoyAdapterOptions } from "../grpc/envoy-options.js";
import { inferenceEndpointOf, isInferencePath } from "../grpc/envoy-paths.js";
import { readHeaderMap, setHeaders } from "./header-map.js";
import { toCachedImmediateResponse, toImmediateResponse } from "./immediate-response.js";
import { callFromBody, refusedCall, forwardPlan, type RequestFacts } from "./request-admission.js";
import { checkInferenceRequestHeaders } from "./request-headers-check.js";
import { ResponseRelay, type ResponseKind } from "./response-relay.js";

type Phase = "requestHeaders" | "requestBody" | "responseHeaders" | "responseBody";
type Answer = ProcessingResponse | undefined;

/** Headers only the gateway may set on the forwarded request: a caller's copies are dropped. */
const OUR_REQUEST_HEADERS = [
  "x-evident-upstream",
  "x-evident-upstream-host",
  "x-evident-customer-id",
  "x-evident-classification",
];

/**
 * One ext_proc stream = one HTTP request through Envoy. Each message gets exactly one answer, in
 * order; the call is finished (metered and audited) exactly once, whichever way the exchange ends:
 * end of the response body, end_of_stream on the response headers, trailers, a refusal, a failure,
 * Envoy half-closing early (skipped phases) or resetting (client gone).
 */
export class ProcessExchange {
  private requestId = "";
  private facts: RequestFacts | undefined;
  /** Not enforced here (public or non-inference path, or fail-open): answer CONTINUE to all. */
  private passThrough = false;
  private readonly requestChunks: Buffer[] = [];
  private requestBytes = 0;
  private call: InferenceCall | undefined;
  private targetId: string | undefined;
  private response: ResponseRelay | undefined;
  private finished = false;
  /** Set once Envoy's answer for the caller is decided (immediate response): nothing more to do. */
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: EnvoyAdapterOptions,
  ) {}

  /** Whether an immediate response ended processing; the stream can be closed. */
  get done(): boolean {
    return this.closed;
  }

  async handle(message: ProcessingRequest): Promise<Answer> {
    const request = message.request;
    if (request === undefined || this.closed) return undefined;
    try {
      switch (request.$case) {
        case "requestHeaders":
          return await this.onRequestHeaders(request.value);
        case "requestBody":
          return await this.onRequestBody(request.value);
        case "requestTrailers":
          return await this.onRequestTrailers();
        case "responseHeaders":
          return await this.onResponseHeaders(request.value);
        case "responseBody":
          return await this.onResponseBody(request.value);
        case "responseTrailers":
          return await this.onResponseTrailers();
      }
    } catch (err) {
      return this.refuse(err);
    }
  }

  /** Envoy ended the stream: "end" after the exchange (or with phases skipped), "reset" if the
   * caller went away. Finishes a call that is still open. */
  async streamEnded(how: "end" | "reset"): Promise<void> {
    const call = this.call;
    if (call === undefined || this.finished) return;
    if (this.response === undefined && this.targetId !== undefined) {
      this.ctx.health.released(this.targetId);
    }
    if (how === "reset") {
      call.outcome = "client_aborted";
      await this.finishOnce(() =>
        failCall(this.ctx, call, new GatewayError("upstream_unavailable", "the client went away")),
      );
      return;
    }
    if (this.response?.sawBody === true) {
      // Part of the body came and the exchange ended before its end: the backend cut it.
      call.outcome = this.response.kind === "sse" ? "stream_failed" : "upstream_error";
      const cut = upstreamFailure(new Error("the response was cut before its end"));
      await this.finishOnce(() => failCall(this.ctx, call, cut));
      return;
    }
    if (this.response !== undefined && (call.status ?? 200) < 400) {
      // The response body was not sent to us (response_body_mode NONE): nothing left to scan.
      call.outcome = "completed";
      call.status ??= 200;
      await this.finishOnce(() => this.ctx.pipeline.finish(call));
      return;
    }
    const reason = "backend error: the exchange ended without a response";
    await this.finishOnce(() =>
      failCall(this.ctx, call, new GatewayError("upstream_unavailable", reason)),
    );
  }

  private async onRequestHeaders(value: HttpHeaders): Promise<Answer> {
    const headers = readHeaderMap(value.headers);
    this.requestId = requestIdFrom(headers["x-request-id"], this.ctx.config.TRUST_REQUEST_ID);
    const path = headers[":path"] ?? "/";
    const endpoint = inferenceEndpointOf(path);
    if (!isInferencePath(path)) {
      this.passThrough = true;
      return answer("requestHeaders");
    }
    let caller;
    try {
      caller = await withinDeadline(
        this.ctx.authenticator.authenticate(headers.authorization),
        this.options.decisionTimeoutMs,
      );
    } catch (err) {
      if (isUndecided(err) && this.options.failureMode === "open") {
        this.undecided(err);
        return answer("requestHeaders");
      }
      throw err;
    }
    if (endpoint === undefined) {
      // GET /v1/models and the like: answered by the REST façade behind Envoy.
      this.passThrough = true;
      return answer("requestHeaders");
    }
    checkInferenceRequestHeaders(this.ctx, endpoint, headers, value.endOfStream);
    this.facts = { requestId: this.requestId, endpoint, caller, headers };
    const remove = [...OUR_REQUEST_HEADERS];
    if (this.options.removeAuthorizationIn === "ext_proc") remove.push("authorization");
    return answer("requestHeaders", {
      headerMutation: {
        setHeaders: setHeaders({ "x-request-id": this.requestId }),
        removeHeaders: remove,
      },
    });
  }

  private async onRequestBody(value: HttpBody): Promise<Answer> {
    const facts = this.facts;
    if (this.passThrough || facts === undefined || this.call !== undefined) {
      return answer("requestBody");
    }
    this.requestBytes += value.body.length;
    if (this.requestBytes > this.ctx.config.MAX_BODY_BYTES) {
      throw new GatewayError("request_too_large", "request body is larger than the limit");
    }
    this.requestChunks.push(value.body);
    if (!value.endOfStream) {
      // STREAMED request bodies: hold every chunk, release the whole (rewritten) body at the end.
      return answer("requestBody", {
        headerMutation: { removeHeaders: ["content-length"] },
        bodyMutation: { mutation: { $case: "clearBody", value: true } },
      });
    }
    // One decision deadline for rendering a prompt reference and admitting the call.
    const decideBy = performance.now() + this.options.decisionTimeoutMs;
    const left = () => Math.max(1, decideBy - performance.now());
    let call: InferenceCall;
    try {
      call = await withinDeadline(
        callFromBody(this.ctx, facts, Buffer.concat(this.requestChunks)),
        left(),
      );
    } catch (err) {
      if (isUndecided(err) && this.options.failureMode === "open") {
        this.undecided(err);
        return answer("requestBody");
      }
      throw err;
    }
    this.call = call;
    try {
      await withinDeadline(this.ctx.pipeline.admit(call), left());
    } catch (err) {
      if (isUndecided(err) && this.options.failureMode === "open") {
        this.undecided(err);
        await this.finishOnce(() => failCall(this.ctx, call, undecidedError(err)));
        return answer("requestBody");
      }
      throw err;
    }
    if (call.cache?.result === "hit") return this.fromCache(call);
    const plan = forwardPlan(call);
    call.target = plan.target;
    this.targetId = plan.target.id;
    this.ctx.health.started(plan.target.id);
    return answer("requestBody", {
      headerMutation: { setHeaders: setHeaders(plan.headers) },
      bodyMutation: { mutation: { $case: "body", value: plan.body } },
      clearRouteCache: true,
    });
  }

  /**
   * A response-cache hit: ext_proc answers the caller itself (an ImmediateResponse with status 200
   * and the stored answer, through output guardrails, as JSON or server-sent events); nothing is
   * forwarded. A guardrail refusal of the stored answer is thrown for the refusal path.
   */
  private async fromCache(call: InferenceCall): Promise<Answer> {
    const cached = await answerFromCache(this.ctx, call, (work) => this.finishOnce(work));
    this.closed = true;
    return toCachedImmediateResponse(cached, call);
  }

  private async onRequestTrailers(): Promise<Answer> {
    if (this.passThrough || this.facts === undefined || this.call !== undefined) {
      return ProcessingResponse.fromPartial({
        response: { $case: "requestTrailers", value: {} },
      });
    }
    // Trailers end a body that never had end_of_stream: it was held and cannot be released now.
    throw new GatewayError(
      "invalid_request",
      "request trailers are not supported on inference endpoints",
    );
  }

  private async onResponseHeaders(value: HttpHeaders): Promise<Answer> {
    const call = this.call;
    if (this.passThrough || call === undefined || this.finished) return answer("responseHeaders");
    const headers = readHeaderMap(value.headers);
    const status = Number(headers[":status"] ?? 200);
    if (this.targetId !== undefined) {
      if (status >= 500) this.ctx.health.failed(this.targetId);
      else this.ctx.health.succeeded(this.targetId);
    }
    const contentType = (headers["content-type"] ?? "").toLowerCase();
    const sse = contentType.startsWith("text/event-stream");
    // A backend's error answer (4xx or 5xx) is relayed with its status; a streamed request
    // answered without an event stream gets an error event, never an empty success.
    const kind: ResponseKind =
      status >= 400 ? "upstream_error" : call.stream && !sse ? "not_sse" : sse ? "sse" : "json";
    if (value.endOfStream && kind !== "upstream_error" && kind !== "not_sse") {
      throw new GatewayError("upstream_unavailable", "backend error: the response has no body");
    }
    call.status = status;
    this.response = new ResponseRelay(this.ctx, call, kind, status, headers, (work) =>
      this.finishOnce(work),
    );
    const set: Record<string, string> = { ...call.responseHeaders, "x-request-id": call.requestId };
    if (kind === "sse" || kind === "not_sse")
      Object.assign(set, { "cache-control": "no-cache", "x-accel-buffering": "no" });
    if (kind === "not_sse") set["content-type"] = "text/event-stream; charset=utf-8";
    else if (kind !== "sse") set["content-type"] = "application/json; charset=utf-8";
    if (value.endOfStream) await this.response.chunk(Buffer.alloc(0), true);
    return answer("responseHeaders", {
      headerMutation: { setHeaders: setHeaders(set), removeHeaders: ["content-length"] },
    });
  }

  private async onResponseBody(value: HttpBody): Promise<Answer> {
    const relay = this.response;
    if (this.passThrough || relay === undefined) return answer("responseBody");
    const result = await relay.chunk(value.body, value.endOfStream);
    if (result.kind === "immediate") return this.immediate(result.error);
    return answer("responseBody", {
      bodyMutation: { mutation: { $case: "body", value: result.body } },
    });
  }

  private async onResponseTrailers(): Promise<Answer> {
    const relay = this.response;
    const trailers = ProcessingResponse.fromPartial({
      response: { $case: "responseTrailers", value: {} },
    });
    if (this.passThrough || relay === undefined || relay.finished) return trailers;
    // The body had no end_of_stream: what is held (JSON, the stream filter's tail) can no longer
    // be released. Envoy sends trailers only with response_trailer_mode SEND.
    const failed = await relay.fail(
      new GatewayError("upstream_unavailable", "backend error: the response ended in trailers"),
    );
    return this.immediate(failed.error);
  }

  /** A refusal or failure: record the call if there is one, and answer the caller. */
  private async refuse(err: unknown): Promise<Answer> {
    let error = toGatewayError(err);
    if (isUndecided(err)) {
      this.ctx.logger.error(
        { request_id: this.requestId, err: String(err) },
        "ext_proc could not decide",
      );
      error = undecidedError(err);
    }
    if (this.call === undefined && this.facts !== undefined && !this.passThrough) {
      // Refused before the body was admitted (malformed, invalid, too large): still recorded.
      this.call = refusedCall(this.ctx, this.facts, Buffer.concat(this.requestChunks));
    }
    const call = this.call;
    if (call !== undefined && !this.finished) {
      if (this.response === undefined && this.targetId !== undefined) {
        this.ctx.health.released(this.targetId);
      }
      await this.finishOnce(async () => {
        error = await failCall(this.ctx, call, error);
      });
    }
    return this.immediate(error);
  }

  private immediate(error: GatewayError): Answer {
    this.closed = true;
    return toImmediateResponse(error, this.requestId || requestIdFrom(undefined, false));
  }

  private undecided(err: unknown): void {
    this.passThrough = true;
    this.ctx.logger.error(
      { request_id: this.requestId, err: String(err) },
      "ext_proc could not decide; failure mode open lets the request through unchecked",
    );
  }

  /**
   * Runs the call's post-call work (metering, audit) once. Envoy waits for the answer that follows
   * it, so it waits at most the decision deadline; slower work goes on in the background.
   */
  private async finishOnce(work: () => Promise<unknown>): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    const running = work().catch((err: unknown) => {
      this.ctx.logger.error(
        { request_id: this.requestId, err: String(err) },
        "post-call processing failed",
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.decisionTimeoutMs);
    });
    await Promise.race([running, deadline]);
    clearTimeout(timer);
  }
}

/** A CONTINUE answer for a phase, with optional mutations. */
function answer(phase: Phase, common: DeepPartial<CommonResponse> = {}): ProcessingResponse {
  return ProcessingResponse.fromPartial({
    response: { $case: phase, value: { response: common } },
  });
}
