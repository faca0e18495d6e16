/** The ext_proc test double's contract: the phases Envoy sends, what it did with each answer. */
import type { Metadata } from "@grpc/grpc-js";
import type { ProcessingResponse } from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import type { BodyMode, LocalReply } from "./envoy-ext-proc-mutations.js";
import type { HeaderEncoding } from "./envoy-headers.js";

export type Phase =
  | "requestHeaders"
  | "requestBody"
  | "requestTrailers"
  | "responseHeaders"
  | "responseBody"
  | "responseTrailers";

/** What Envoy did with one message it sent (or would have sent). */
export type PhaseResult =
  | { kind: "continued"; response: ProcessingResponse }
  | { kind: "immediate"; response: ProcessingResponse; reply: LocalReply }
  /** The processor broke the protocol, the stream failed, or the message timed out: Envoy answers
   * the caller 500 itself (see `localReply`), unless failure_mode_allow. */
  | { kind: "failed"; reason: string }
  /** Envoy forwarded the data without a processor answer (processing already over, the processor
   * closed the stream, or failure_mode_allow after a failure). */
  | { kind: "passed-through"; reason: string };

export interface ExtProcSessionOptions {
  /** Default "raw_value", like current Envoy. */
  headerEncoding?: HeaderEncoding;
  /** Default BUFFERED (what guardrails need). */
  requestBodyMode?: BodyMode;
  /** Default STREAMED (SSE output scanning). */
  responseBodyMode?: BodyMode;
  /** Envoy's message_timeout (Envoy's default is 200 ms; 5000 ms here unless set). */
  messageTimeoutMs?: number;
  failureModeAllow?: boolean;
  metadata?: Metadata;
}

export interface StreamEnd {
  code: number;
  details: string;
  /** "processor": the server ended the stream; "envoy": the fake cancelled it (reset). */
  endedBy: "processor" | "envoy";
}
