import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The operator's own Prometheus metrics, on a registry of its own (no global state). */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: "evident_operator_reconcile_total",
    help: "Reconciles by kind and result (success, error, requeue)",
    labelNames: ["kind", "result"],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: "evident_operator_reconcile_duration_seconds",
    help: "Time spent in one reconcile",
    labelNames: ["kind"],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "evident_operator_queue_depth",
    help: "Keys waiting in the work queue",
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: "evident_operator_watch_restarts_total",
    help: "Watch restarts by resource and reason (closed, error, expired, resync)",
    labelNames: ["resource", "reason"],
    registers: [this.registry],
  });
  readonly isLeader = new Gauge({
    name: "evident_operator_leader",
    help: "1 while this replica holds the leader lease",
    registers: [this.registry],
  });
  readonly nativeErrors = new Counter({
    name: "evident_operator_native_api_errors_total",
    help: "Errors from the data plane's native API by kind and error code",
    labelNames: ["kind", "code"],
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }
}
