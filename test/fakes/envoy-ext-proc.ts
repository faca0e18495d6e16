/**
 * Test double for Envoy's ext_proc HTTP filter: one ExtProcSession is the gRPC stream Envoy opens
 * for one HTTP request. Each method sends the message Envoy sends for that phase and resolves with
 * what Envoy did with the processor's answer; the session keeps what the upstream and the caller
 * would see. Phases the processing mode skips are simply not called.
 */
import {
  type ClientDuplexStream,
  Metadata,
  type ServiceError,
  status as GrpcCode,
} from "@grpc/grpc-js";
import {
  type ExternalProcessorClient,
  ProcessingRequest,
  type ProcessingResponse,
} from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import { envoyRequestHeaders, type HttpRequestDescription } from "./envoy-ext-authz.js";
import {
  type HeaderEncoding,
  type HeaderInput,
  toEnvoyHeaderMap,
  toHeaderList,
} from "./envoy-headers.js";
import {
  applyProcessingResponse,
  type BodyMode,
  type HttpMessageState,
  type LocalReply,
  localReplyFrom,
} from "./envoy-ext-proc-mutations.js";
import type {
  ExtProcSessionOptions,
  Phase,
  PhaseResult,
  StreamEnd,
} from "./envoy-ext-proc-phases.js";

interface Pending {
  phase: Phase;
  chunk: Buffer;
  resolve: (result: PhaseResult) => void;
  timer: NodeJS.Timeout;
}

type Direction = "request" | "response";
const directionOf = (phase: Phase): Direction =>
  phase.startsWith("request") ? "request" : "response";

export class ExtProcSession {
  /** Every message sent to and received from the processor, in order. */
  readonly sent: ProcessingRequest[] = [];
  readonly responses: ProcessingResponse[] = [];
  readonly rejectedHeaderMutations: string[] = [];
  routeCacheCleared = false;
  /** The request as Envoy forwards it to the upstream. */
  readonly upstream: HttpMessageState;
  /** The upstream's response as Envoy forwards it to the caller. */
  readonly downstream: HttpMessageState = { headers: [], body: Buffer.alloc(0), trailers: [] };
  /** Set when Envoy answers the caller itself (ImmediateResponse, or 500 after a failure). */
  localReply?: LocalReply;
  failure?: string;
  /** Resolves once the gRPC stream has ended, whoever ended it. */
  readonly ended: Promise<StreamEnd>;

  private readonly call: ClientDuplexStream<ProcessingRequest, ProcessingResponse>;
  private readonly encoding: HeaderEncoding;
  private readonly bodyModes: Record<Direction, BodyMode>;
  private readonly pending: Pending[] = [];
  private readonly replaced = new Set<Direction>();
  private complete = false;
  private cancelledByEnvoy = false;

  constructor(
    client: ExternalProcessorClient,
    request: HttpRequestDescription,
    private readonly options: ExtProcSessionOptions = {},
  ) {
    this.encoding = options.headerEncoding ?? "raw_value";
    this.bodyModes = {
      request: options.requestBodyMode ?? "BUFFERED",
      response: options.responseBodyMode ?? "STREAMED",
    };
    this.upstream = { headers: envoyRequestHeaders(request), body: Buffer.alloc(0), trailers: [] };
    this.call = client.process(options.metadata ?? new Metadata());
    this.ended = new Promise((resolve) => {
      this.call.on("status", (status) => {
        resolve({
          code: status.code,
          details: status.details,
          endedBy: this.cancelledByEnvoy ? "envoy" : "processor",
        });
      });
    });
    this.call.on("data", (response: ProcessingResponse) => this.onResponse(response));
    this.call.on("error", (error: ServiceError) => this.onStreamClosed(error.code, error.details));
    this.call.on("end", () => this.onStreamClosed(GrpcCode.OK, "processor closed the stream"));
  }

  requestHeaders(options: { endOfStream?: boolean } = {}): Promise<PhaseResult> {
    const headers = toEnvoyHeaderMap(this.upstream.headers, this.encoding);
    const endOfStream = options.endOfStream ?? false;
    return this.send("requestHeaders", Buffer.alloc(0), {
      request: { $case: "requestHeaders", value: { headers, endOfStream } },
    });
  }

  requestBody(
    chunk: string | Buffer,
    options: { endOfStream?: boolean } = {},
  ): Promise<PhaseResult> {
    const body = Buffer.from(chunk);
    return this.send("requestBody", body, {
      request: { $case: "requestBody", value: { body, endOfStream: options.endOfStream ?? false } },
    });
  }

  requestTrailers(trailers: HeaderInput): Promise<PhaseResult> {
    this.upstream.trailers = toHeaderList(trailers);
    const map = toEnvoyHeaderMap(this.upstream.trailers, this.encoding);
    return this.send("requestTrailers", Buffer.alloc(0), {
      request: { $case: "requestTrailers", value: { trailers: map } },
    });
  }

  /** The upstream's response headers; `:status` is added as Envoy does. */
  responseHeaders(
    status: number,
    headers: HeaderInput,
    options: { endOfStream?: boolean } = {},
  ): Promise<PhaseResult> {
    const given = toHeaderList(headers).filter(([name]) => name !== ":status");
    this.downstream.headers = [[":status", String(status)], ...given];
    const map = toEnvoyHeaderMap(this.downstream.headers, this.encoding);
    const endOfStream = options.endOfStream ?? false;
    return this.send("responseHeaders", Buffer.alloc(0), {
      request: { $case: "responseHeaders", value: { headers: map, endOfStream } },
    });
  }

  responseBody(
    chunk: string | Buffer,
    options: { endOfStream?: boolean } = {},
  ): Promise<PhaseResult> {
    const body = Buffer.from(chunk);
    return this.send("responseBody", body, {
      request: {
        $case: "responseBody",
        value: { body, endOfStream: options.endOfStream ?? false },
      },
    });
  }

  responseTrailers(trailers: HeaderInput): Promise<PhaseResult> {
    this.downstream.trailers = toHeaderList(trailers);
    const map = toEnvoyHeaderMap(this.downstream.trailers, this.encoding);
    return this.send("responseTrailers", Buffer.alloc(0), {
      request: { $case: "responseTrailers", value: { trailers: map } },
    });
  }

  /** End of the HTTP exchange: Envoy half-closes the stream; if the processor has not ended it
   * within `graceMs`, Envoy resets it when the filter is destroyed. */
  async end(graceMs = 2000): Promise<StreamEnd> {
    this.complete = true;
    this.call.end();
    const timer = setTimeout(() => this.reset(), graceMs);
    const result = await this.ended;
    clearTimeout(timer);
    return result;
  }

  /** The caller reset the HTTP stream mid-way: Envoy cancels the gRPC stream. */
  reset(): Promise<StreamEnd> {
    this.complete = true;
    this.cancelledByEnvoy = true;
    this.call.cancel();
    return this.ended;
  }

  private send(
    phase: Phase,
    chunk: Buffer,
    message: Parameters<typeof ProcessingRequest.fromPartial>[0],
  ) {
    const direction = directionOf(phase);
    if (this.complete || this.replaced.has(direction)) {
      const reason = this.complete
        ? "processing is over for this request"
        : "CONTINUE_AND_REPLACE ended this direction";
      if (phase.endsWith("Body") && !this.replaced.has(direction)) this.passBody(direction, chunk);
      return Promise.resolve<PhaseResult>({ kind: "passed-through", reason });
    }
    const request = ProcessingRequest.fromPartial(message);
    this.sent.push(request);
    return new Promise<PhaseResult>((resolve) => {
      const timeoutMs = this.options.messageTimeoutMs ?? 5000;
      const timer = setTimeout(() => this.fail("per-message timeout exceeded"), timeoutMs);
      this.pending.push({ phase, chunk, resolve, timer });
      this.call.write(request);
    });
  }

  private passBody(direction: Direction, chunk: Buffer) {
    const state = direction === "request" ? this.upstream : this.downstream;
    state.body = Buffer.concat([state.body, chunk]);
  }

  private onResponse(response: ProcessingResponse) {
    this.responses.push(response);
    const head = this.pending.shift();
    if (head === undefined)
      return this.fail("spurious message: no message was waiting for an answer");
    clearTimeout(head.timer);
    const answer = response.response;
    if (answer?.$case === "immediateResponse") {
      const reply = localReplyFrom(answer.value, this.encoding);
      this.localReply = reply;
      this.complete = true;
      this.call.end();
      head.resolve({ kind: "immediate", response, reply });
      return this.settleAll({ kind: "immediate", response, reply });
    }
    if (answer?.$case !== head.phase) {
      this.pending.unshift(head);
      return this.fail(
        `spurious message: got ${answer?.$case ?? "an empty response"} while waiting for ${head.phase}`,
      );
    }
    const direction = directionOf(head.phase);
    const state = direction === "request" ? this.upstream : this.downstream;
    const mode = this.bodyModes[direction];
    const applied = applyProcessingResponse(state, response, head.chunk, mode, this.encoding);
    if (!applied.ok) {
      this.pending.unshift(head);
      return this.fail(applied.reason);
    }
    this.rejectedHeaderMutations.push(...applied.rejected);
    if (applied.clearRouteCache) this.routeCacheCleared = true;
    if (applied.replaced) this.replaced.add(directionOf(head.phase));
    head.resolve({ kind: "continued", response });
  }

  /** A processing failure: Envoy stops using the processor and, unless failure_mode_allow, answers
   * the caller 500 itself; the gRPC stream is reset. */
  private fail(reason: string) {
    if (this.complete) return;
    this.failure = reason;
    this.complete = true;
    if (this.options.failureModeAllow === true) {
      this.settleAll({ kind: "passed-through", reason }, true);
    } else {
      this.localReply = {
        status: 500,
        headers: [],
        body: Buffer.alloc(0),
        details: `ext_proc error: ${reason}`,
      };
      this.settleAll({ kind: "failed", reason });
    }
    this.cancelledByEnvoy = true;
    this.call.cancel();
  }

  private onStreamClosed(code: number, details: string) {
    if (this.complete) return;
    if (code !== GrpcCode.OK) return this.fail(`gRPC error ${code}: ${details}`);
    // A processor that closes the stream OK ends processing: the rest passes through unprocessed.
    this.complete = true;
    this.settleAll({ kind: "passed-through", reason: "processor closed the stream" }, true);
  }

  private settleAll(result: PhaseResult, passBodies = false) {
    for (const item of this.pending.splice(0)) {
      clearTimeout(item.timer);
      if (passBodies && item.phase.endsWith("Body"))
        this.passBody(directionOf(item.phase), item.chunk);
      item.resolve(result);
    }
  }
}
