import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { InferenceCall } from "../../dataplane/core/inference-call.js";

const UNROUTED = "(unrouted)";

/** Labels stay bounded: models and targets come from the registry, never from the caller. */
function modelOf(call: InferenceCall): string {
  return call.route?.model.name ?? UNROUTED;
}

function statusClass(status: number | undefined): string {
  return status === undefined ? "none" : `${Math.floor(status / 100)}xx`;
}

/** Customer-defined rule ids are not labels: every rule counts as "rule". */
function checkOf(check: string): string {
  return check.startsWith("rule:") ? "rule" : check;
}

/**
 * The call metrics as they were recorded before series families (commit b9e818f), with
 * prom-client's own inc/observe/set and a labels object per call: the oracle that
 * dataplane/observability/call-metrics.test.ts compares the gateway's exposition with.
 */
export function createPromClientCallMetrics(registry: Registry) {
  const registers = [registry];
  const requests = new Counter({
    name: "evident_inference_requests_total",
    help: "Inference calls by endpoint, model, outcome and status class",
    labelNames: ["endpoint", "model", "outcome", "status_class"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "evident_inference_duration_seconds",
    help: "Inference call latency, arrival to last byte, by endpoint, model and outcome",
    labelNames: ["endpoint", "model", "outcome"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const tokens = new Counter({
    name: "evident_tokens_total",
    help: "Tokens by model and kind (prompt, completion)",
    labelNames: ["model", "kind"] as const,
    registers,
  });
  const cost = new Counter({
    name: "evident_cost_usd_total",
    help: "Cost in USD from the model's prices, by model",
    labelNames: ["model"] as const,
    registers,
  });
  const verdicts = new Counter({
    name: "evident_guardrail_verdicts_total",
    help: "Guardrail verdicts by check and action",
    labelNames: ["check", "action"] as const,
    registers,
  });
  const limits = new Counter({
    name: "evident_limit_refusals_total",
    help: "Calls refused by a rate limit or budget, by error code",
    labelNames: ["code"] as const,
    registers,
  });
  // Both codes start at 0, so rate() sees the first refusal.
  for (const code of ["rate_limit_exceeded", "budget_exceeded"]) limits.inc({ code }, 0);
  const upstream = new Counter({
    name: "evident_upstream_requests_total",
    help: "Calls forwarded to a backend, by target kind, target and result",
    labelNames: ["target_kind", "target", "result"] as const,
    registers,
  });
  const auditLag = new Histogram({
    name: "evident_audit_lag_seconds",
    help: "Time from the end of a call to its audit record being durable",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
    registers,
  });
  const inFlight = new Gauge({
    name: "evident_inference_in_flight",
    help: "Inference calls routed and not yet finished, in this process",
    registers,
  });

  return {
    inFlight,
    /** One finished call (after metering, so cost and usage are known). */
    observe(call: InferenceCall, latencyMs: number): void {
      const model = modelOf(call);
      const outcome = call.outcome ?? "unknown";
      requests.inc({
        endpoint: call.endpoint,
        model,
        outcome,
        status_class: statusClass(call.status),
      });
      duration.observe({ endpoint: call.endpoint, model, outcome }, latencyMs / 1000);
      if (call.usage) {
        tokens.inc({ model, kind: "prompt" }, call.usage.promptTokens);
        tokens.inc({ model, kind: "completion" }, call.usage.completionTokens);
      }
      if (call.costUsd) cost.inc({ model }, call.costUsd);
      for (const v of call.verdicts) verdicts.inc({ check: checkOf(v.check), action: v.action });
      const code = call.error?.code;
      if (code === "rate_limit_exceeded" || code === "budget_exceeded") limits.inc({ code });
      if (call.target) {
        const result =
          call.outcome === "upstream_error" || call.outcome === "stream_failed" ? "error" : "ok";
        upstream.inc({ target_kind: call.target.kind, target: call.target.id, result });
      }
    },
    auditLag(seconds: number): void {
      auditLag.observe(seconds);
    },
  };
}

/** The HTTP request metrics as they were before series families (commit b9e818f). */
export function createPromClientHttpMetrics(registry: Registry) {
  const httpRequests = new Counter({
    name: "evident_http_requests_total",
    help: "HTTP requests by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "evident_http_request_duration_seconds",
    help: "HTTP request latency by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    /** One answered request, labelled as the server's onResponse hook labelled it. */
    record(route: string, method: string, status: number, seconds: number): void {
      const labels = { route, method, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
  };
}
