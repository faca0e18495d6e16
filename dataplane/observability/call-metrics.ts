import { Gauge, type Registry } from "prom-client";
import type { InferenceCall } from "../core/inference-call.js";
import { CounterFamily, HistogramFamily } from "./series-families.js";

const UNROUTED = "(unrouted)";

/** Labels stay bounded: models and targets come from the registry, never from the caller. */
function modelOf(call: InferenceCall): string {
  return call.route?.model.name ?? UNROUTED;
}

/** "0xx" to "9xx", made once. */
const STATUS_CLASSES = Array.from({ length: 10 }, (_, hundreds) => `${hundreds}xx`);

function statusClass(status: number | undefined): string {
  if (status === undefined) return "none";
  const hundreds = Math.floor(status / 100);
  return STATUS_CLASSES[hundreds] ?? `${hundreds}xx`;
}

/** Customer-defined rule ids are not labels: every rule counts as "rule". */
function checkOf(check: string): string {
  return check.startsWith("rule:") ? "rule" : check;
}

/**
 * Per-call Prometheus metrics: requests, latency, tokens, cost, guardrail verdicts, limit
 * refusals, upstream results and audit lag. Recorded once per call after it is metered.
 */
export function createCallMetrics(registry: Registry) {
  const registers = [registry];
  const requests = new CounterFamily({
    name: "evident_inference_requests_total",
    help: "Inference calls by endpoint, model, outcome and status class",
    labelNames: ["endpoint", "model", "outcome", "status_class"] as const,
    registers,
  });
  const duration = new HistogramFamily({
    name: "evident_inference_duration_seconds",
    help: "Inference call latency, arrival to last byte, by endpoint, model and outcome",
    labelNames: ["endpoint", "model", "outcome"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const tokens = new CounterFamily({
    name: "evident_tokens_total",
    help: "Tokens by model and kind (prompt, completion)",
    labelNames: ["model", "kind"] as const,
    registers,
  });
  const cost = new CounterFamily({
    name: "evident_cost_usd_total",
    help: "Cost in USD from the model's prices, by model",
    labelNames: ["model"] as const,
    registers,
  });
  const verdicts = new CounterFamily({
    name: "evident_guardrail_verdicts_total",
    help: "Guardrail verdicts by check and action",
    labelNames: ["check", "action"] as const,
    registers,
  });
  const limits = new CounterFamily({
    name: "evident_limit_refusals_total",
    help: "Calls refused by a rate limit or budget, by error code",
    labelNames: ["code"] as const,
    registers,
  });
  // Both codes start at 0, so rate() sees the first refusal.
  for (const code of ["rate_limit_exceeded", "budget_exceeded"]) limits.series(code).inc(0);
  const upstream = new CounterFamily({
    name: "evident_upstream_requests_total",
    help: "Calls forwarded to a backend, by target kind, target and result",
    labelNames: ["target_kind", "target", "result"] as const,
    registers,
  });
  const auditLag = new HistogramFamily({
    name: "evident_audit_lag_seconds",
    labelNames: [],
    help: "Time from the end of a call to its audit record being durable",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
    registers,
  });
  const lag = auditLag.series();
  // Read at scrape time from the source the analytics wiring gives (0 until it does).
  let inFlightSource: (() => number) | undefined;
  new Gauge({
    name: "evident_inference_in_flight",
    help: "Inference calls routed and not yet finished, in this process",
    registers,
    collect() {
      if (inFlightSource !== undefined) this.set(inFlightSource());
    },
  });

  return {
    /** Where the in-flight gauge reads its value at each scrape. */
    countInFlight(source: () => number): void {
      inFlightSource = source;
    },
    /** One finished call (after metering, so cost and usage are known). */
    observe(call: InferenceCall, latencyMs: number): void {
      const model = modelOf(call);
      const outcome = call.outcome ?? "unknown";
      requests.series(call.endpoint, model, outcome, statusClass(call.status)).inc();
      duration.series(call.endpoint, model, outcome).observe(latencyMs / 1000);
      if (call.usage) {
        tokens.series(model, "prompt").inc(call.usage.promptTokens);
        tokens.series(model, "completion").inc(call.usage.completionTokens);
      }
      if (call.costUsd) cost.series(model).inc(call.costUsd);
      for (const v of call.verdicts) verdicts.series(checkOf(v.check), v.action).inc();
      const code = call.error?.code;
      if (code === "rate_limit_exceeded" || code === "budget_exceeded") limits.series(code).inc();
      if (call.target) {
        const result =
          call.outcome === "upstream_error" || call.outcome === "stream_failed" ? "error" : "ok";
        upstream.series(call.target.kind, call.target.id, result).inc();
      }
    },
    auditLag(seconds: number): void {
      lag.observe(seconds);
    },
  };
}

export type CallMetrics = ReturnType<typeof createCallMetrics>;
