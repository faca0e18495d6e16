import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import type { UpstreamObserver } from "../upstream/upstream-client.js";
import { callAttributes, responseDetails, type ResponseDetails } from "./genai-attributes.js";

export interface TracingOptions {
  /** OTLP/HTTP base URL; spans go to {endpoint}/v1/traces as OTLP JSON. */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
}

export interface Tracing {
  /** The stage with a child span around its work; `endsCall` on the last stage ends the call. */
  stage(stage: PipelineStage, spanName: string, endsCall?: boolean): PipelineStage;
  /** Upstream requests as client spans, with the W3C traceparent sent to the backend. */
  upstream: UpstreamObserver;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();
const MAX_ATTRIBUTE = 256;

/**
 * OpenTelemetry traces for every inference call, only when an OTLP endpoint is configured (the
 * app does not wrap anything otherwise, so tracing costs nothing when off). One server span per
 * call, named "{operation} {model}" with the GenAI semantic-convention attributes, and children
 * for the limits, guardrails, routing, upstream, meter and audit stages. A caller's traceparent
 * is continued; the upstream span's traceparent is sent to the backend.
 */
export function createTracing(options: TracingOptions): Tracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": options.serviceName,
      "service.version": options.serviceVersion,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({
          url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces`,
        }),
        scheduledDelayMillis: 1_000,
      }),
    ],
  });
  const tracer: Tracer = provider.getTracer("evident", options.serviceVersion);
  const roots = new WeakMap<InferenceCall, Span>();
  const byRequest = new Map<string, Span>();
  const details = new WeakMap<InferenceCall, ResponseDetails>();

  function rootOf(call: InferenceCall): Span {
    const existing = roots.get(call);
    if (existing) return existing;
    const parent = propagator.extract(
      ROOT_CONTEXT,
      call.requestHeaders ?? {},
      defaultTextMapGetter,
    );
    const attributes = callAttributes(call);
    const span = tracer.startSpan(
      `${String(attributes["gen_ai.operation.name"])} ${call.requestedModel.slice(0, MAX_ATTRIBUTE)}`,
      { kind: SpanKind.SERVER, startTime: call.startedAt, attributes },
      parent,
    );
    roots.set(call, span);
    byRequest.set(call.requestId, span);
    return span;
  }

  function within(call: InferenceCall): Context {
    return trace.setSpan(ROOT_CONTEXT, rootOf(call));
  }

  async function inSpan<T>(call: InferenceCall, name: string, work: () => Promise<T>): Promise<T> {
    const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL }, within(call));
    try {
      return await work();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: typeof code === "string" ? code : "error",
      });
      throw err;
    } finally {
      span.end();
    }
  }

  function endCall(call: InferenceCall): void {
    const span = roots.get(call);
    if (!span) return;
    roots.delete(call);
    if (byRequest.get(call.requestId) === span) byRequest.delete(call.requestId);
    span.setAttributes(callAttributes(call, details.get(call)));
    const failed =
      call.status === undefined || call.status >= 500 || call.outcome === "stream_failed";
    if (failed && call.outcome !== "client_aborted") {
      span.setStatus({ code: SpanStatusCode.ERROR, message: call.error?.code ?? call.outcome });
    }
    span.end();
  }

  return {
    stage(stage, spanName, endsCall = false) {
      const transform = stage.transformResponse;
      // Post-call work (settling limits, metering, the audit write) gets its own span name.
      const afterName = stage.beforeForward && !endsCall ? `${spanName}.after_call` : spanName;
      return {
        name: stage.name,
        beforeForward: stage.beforeForward
          ? (call) => inSpan(call, spanName, () => stage.beforeForward?.(call) ?? Promise.resolve())
          : (call) => {
              rootOf(call);
              return Promise.resolve();
            },
        transformResponse: transform
          ? (call, body) => {
              if (!details.has(call)) details.set(call, responseDetails(body));
              return inSpan(call, spanName, () => transform.call(stage, call, body));
            }
          : undefined,
        openStreamFilter: stage.openStreamFilter
          ? (call, part) => stage.openStreamFilter?.(call, part)
          : undefined,
        async afterCall(call) {
          try {
            if (stage.afterCall)
              await inSpan(call, afterName, () => stage.afterCall?.(call) ?? Promise.resolve());
          } finally {
            if (endsCall) endCall(call);
          }
        },
      };
    },
    upstream(target, req, headers) {
      const requestId = headers["x-request-id"]?.replace(/\.check$/, "");
      const root = requestId === undefined ? undefined : byRequest.get(requestId);
      if (!root) return undefined;
      const url = new URL(target.baseUrl);
      const span = tracer.startSpan(
        `${req.path.includes("embeddings") ? "embeddings" : "chat"} ${target.upstreamModel}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.system": "openai",
            "gen_ai.request.model": target.upstreamModel.slice(0, MAX_ATTRIBUTE),
            "server.address": url.hostname,
            "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
            "http.request.method": req.method,
            "evident.target.id": target.id,
            "evident.target.kind": target.kind,
          },
        },
        trace.setSpan(ROOT_CONTEXT, root),
      );
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
      return (status) => {
        if (status !== undefined) span.setAttribute("http.response.status_code", status);
        if (status === undefined || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The stage traced when tracing is on; the stage itself, untouched, when it is off. */
export function traced(
  tracing: Tracing | undefined,
  stage: PipelineStage,
  spanName: string,
  endsCall = false,
): PipelineStage {
  return tracing ? tracing.stage(stage, spanName, endsCall) : stage;
}
