import { performance } from "node:perf_hooks";
import {
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
import { requestIdFrom } from "../http/request-id.js";
import { isUndecided, undecidedError, withinDeadline } from "../grpc/decision-deadline.js";
import type { EnvoyAdapterOptions } from "../grpc/envoy-options.js";
import { inferenceEndpointOf, isInferencePath } from "../grpc/envoy-paths.js";
import {
  continueAnswer,
  continueTrailers,
  forwardRequestBody,
  holdRequestChunk,
} from "./continue-answer.js";
import { finishEndedStream } from "./ended-stream.js";
import { forwardedRequestHeaderMutation } from "./forwarded-request-headers.js";
import { readHeaderMap, setHeaders } from "./header-map.js";
import { PostCallWork } from "./post-call-work.js";
import { toCachedImmediateResponse, toImmediateResponse } from "./immediate-response.js";
import { callFromBody, refusedCall, forwardPlan, type RequestFacts } from "./request-admission.js";
import { checkInferenceRequestHeaders } from "./request-headers-check.js";
import { relayedResponseHeaders, responseKindOf } from "./relayed-response-headers.js";
import { ResponseRelay } from "./response-relay.js";

type Answer = ProcessingResponse | undefined;

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
  /** Set once Envoy's answer for the caller is decided (immediate response): nothing more to do. */
  private closed = false;
  private readonly postCall: PostCallWork;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: EnvoyAdapterOptions,
  ) {
    this.postCall = new PostCallWork(ctx.logger, options.decisionTimeoutMs);
  }

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
    if (call === undefined || this.postCall.finished) return;
    if (this.response === undefined && this.targetId !== undefined) {
      this.ctx.health.released(this.targetId);
    }
    await finishEndedStream(this.ctx, call, this.response, how, (work) => this.finishOnce(work));
  }

  private async onRequestHeaders(value: HttpHeaders): Promise<Answer> {
    const headers = readHeaderMap(value.headers);
    this.requestId = requestIdFrom(headers["x-request-id"], this.ctx.config.TRUST_REQUEST_ID);
    const path = headers[":path"] ?? "/";
    const endpoint = inferenceEndpointOf(path);
    if (!isInferencePath(path)) {
      this.passThrough = true;
      return continueAnswer("requestHeaders");
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
        return continueAnswer("requestHeaders");
      }
      throw err;
    }
    if (endpoint === undefined) {
      // GET /v1/models and the like: answered by the REST façade behind Envoy.
      this.passThrough = true;
      return continueAnswer("requestHeaders");
    }
    checkInferenceRequestHeaders(this.ctx, endpoint, headers, value.endOfStream);
    this.facts = { requestId: this.requestId, endpoint, caller, headers };
    const removeAuthorization = this.options.removeAuthorizationIn === "ext_proc";
    return continueAnswer("requestHeaders", {
      headerMutation: forwardedRequestHeaderMutation(this.requestId, removeAuthorization),
    });
  }

  private async onRequestBody(value: HttpBody): Promise<Answer> {
    const facts = this.facts;
    if (this.passThrough || facts === undefined || this.call !== undefined) {
      return continueAnswer("requestBody");
    }
    this.requestBytes += value.body.length;
    if (this.requestBytes > this.ctx.config.MAX_BODY_BYTES) {
      throw new GatewayError("request_too_large", "request body is larger than the limit");
    }
    this.requestChunks.push(value.body);
    if (!value.endOfStream) {
      return holdRequestChunk();
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
        return continueAnswer("requestBody");
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
        return continueAnswer("requestBody");
      }
      throw err;
    }
    if (call.cache?.result === "hit") return this.fromCache(call);
    const plan = forwardPlan(call);
    call.target = plan.target;
    this.targetId = plan.target.id;
    this.ctx.health.started(plan.target.id);
    return forwardRequestBody(plan);
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
      return continueTrailers("requestTrailers");
    }
    // Trailers end a body that never had end_of_stream: it was held and cannot be released now.
    throw new GatewayError(
      "invalid_request",
      "request trailers are not supported on inference endpoints",
    );
  }

  private async onResponseHeaders(value: HttpHeaders): Promise<Answer> {
    const call = this.call;
    if (this.passThrough || call === undefined || this.postCall.finished)
      return continueAnswer("responseHeaders");
    const headers = readHeaderMap(value.headers);
    const status = Number(headers[":status"] ?? 200);
    if (this.targetId !== undefined) {
      if (status >= 500) this.ctx.health.failed(this.targetId);
      else this.ctx.health.succeeded(this.targetId);
    }
    const kind = responseKindOf(call, status, headers);
    if (value.endOfStream && kind !== "upstream_error" && kind !== "not_sse") {
      throw new GatewayError("upstream_unavailable", "backend error: the response has no body");
    }
    call.status = status;
    this.response = new ResponseRelay(this.ctx, call, kind, status, headers, (work) =>
      this.finishOnce(work),
    );
    const set = relayedResponseHeaders(call, kind);
    if (value.endOfStream) await this.response.chunk(Buffer.alloc(0), true);
    return continueAnswer("responseHeaders", {
      headerMutation: { setHeaders: setHeaders(set), removeHeaders: ["content-length"] },
    });
  }

  private async onResponseBody(value: HttpBody): Promise<Answer> {
    const relay = this.response;
    if (this.passThrough || relay === undefined) return continueAnswer("responseBody");
    const result = await relay.chunk(value.body, value.endOfStream);
    if (result.kind === "immediate") return this.immediate(result.error);
    return continueAnswer("responseBody", {
      bodyMutation: { mutation: { $case: "body", value: result.body } },
    });
  }

  private async onResponseTrailers(): Promise<Answer> {
    const relay = this.response;
    const trailers = continueTrailers("responseTrailers");
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
    if (call !== undefined && !this.postCall.finished) {
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

  /** Runs the call's post-call work once, waiting for it at most the decision deadline. */
  private finishOnce(work: () => Promise<unknown>): Promise<void> {
    return this.postCall.once(this.requestId, work);
  }
}
