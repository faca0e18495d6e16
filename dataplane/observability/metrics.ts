import { Counter, Registry, collectDefaultMetrics } from "prom-client";
import { createCallMetrics } from "./call-metrics.js";
import { CounterFamily, HistogramFamily } from "./series-families.js";

/** The data plane's Prometheus metrics, on a registry of its own (never the global one). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "evident_" });
  const httpRequests = new CounterFamily({
    name: "evident_http_requests_total",
    help: "HTTP requests by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new HistogramFamily({
    name: "evident_http_request_duration_seconds",
    help: "HTTP request latency by route template, method and status",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const calls = createCallMetrics(registry);
  const auditQuarantined = new Counter({
    name: "evident_audit_quarantined_total",
    help: "Audit records the store refused even after escaping, kept in audit_quarantine (alert on any)",
    registers: [registry],
  });
  const escapedErrors = new Counter({
    name: "evident_escaped_errors_total",
    help: "Errors that escaped their handler and were caught by the process guard (never a crash)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration, calls, auditQuarantined, escapedErrors };
}

export type Metrics = ReturnType<typeof createMetrics>;
