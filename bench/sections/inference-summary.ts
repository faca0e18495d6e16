/** Turns the inference section's runs into its table, ratios and target checks. */
import type { BenchOptions } from "../config/bench-options.js";
import { percentile } from "../load/percentile.js";
import { Metrics, round3, type Measurements, type ScenarioName } from "./inference-metrics.js";
import type { TargetName } from "./inference-targets.js";
import type { SectionReport, TargetCheck } from "./section.js";

export type { Measurements, Run, ScenarioName } from "./inference-metrics.js";

const SSE: ScenarioName[] = ["sse-throughput", "paced-ttft"];
const ALL: ScenarioName[] = ["json-throughput", "sse-throughput", "json-latency", "paced-ttft"];
const GATEWAYS = ["gateway", "gateway-guarded"] as const;

function table(m: Metrics, targets: TargetName[]): string[][] {
  const row = (label: string, cell: (t: TargetName) => string): string[] => [
    label,
    ...targets.map(cell),
  ];
  const ms =
    (scenario: ScenarioName, field: "latenciesMs" | "firstTokenMs", p: number) => (t: TargetName) =>
      m.pooled(scenario, t, field, p).toFixed(3);
  const cpu = (scenario: ScenarioName) => (t: TargetName) => {
    const value = m.hopCpu(scenario, t);
    return value === null ? "-" : value.toFixed(0);
  };
  const ratioOf = (t: TargetName, field: "undelivered" | "altered") =>
    `${m.sum(t, SSE, "completed") - m.sum(t, SSE, field)}/${m.sum(t, SSE, "completed")}`;
  return [
    ["metric", ...targets],
    row("JSON chat req/s, 50 conns (median of rounds)", (t) =>
      m.rps("json-throughput", t).toFixed(0),
    ),
    row("SSE chat req/s, 50 conns (median of rounds)", (t) =>
      m.rps("sse-throughput", t).toFixed(0),
    ),
    row("JSON latency p50 ms, 1 conn", ms("json-latency", "latenciesMs", 50)),
    row("JSON latency p99 ms, 1 conn", ms("json-latency", "latenciesMs", 99)),
    row("TTFT p50 ms, paced 10x20 ms", ms("paced-ttft", "firstTokenMs", 50)),
    row("TTFT p99 ms, paced 10x20 ms", ms("paced-ttft", "firstTokenMs", 99)),
    row("SSE responses, every chunk as sent", (t) => ratioOf(t, "undelivered")),
    row("SSE responses, whole text unchanged", (t) => ratioOf(t, "altered")),
    row("hop CPU us/request, JSON 50 conns", cpu("json-throughput")),
    row("hop CPU us/request, SSE 50 conns", cpu("sse-throughput")),
    row("upstream CPU us/request, JSON 50 conns", (t) =>
      m.upstreamCpu("json-throughput", t).toFixed(0),
    ),
    row("failed requests (all scenarios)", (t) => String(m.sum(t, ALL, "errors"))),
  ];
}

function ratios(m: Metrics, targets: TargetName[]): Record<string, number | null> {
  const out: Record<string, number | null> = {
    baseline_over_direct_json_rps: m.ratio("json-throughput", "baseline", "direct"),
    baseline_over_direct_sse_rps: m.ratio("sse-throughput", "baseline", "direct"),
    baseline_added_p50_ms: m.added("json-latency", "baseline", "latenciesMs", 50),
    baseline_added_p99_ms: m.added("json-latency", "baseline", "latenciesMs", 99),
    baseline_added_ttft_p50_ms: m.added("paced-ttft", "baseline", "firstTokenMs", 50),
  };
  for (const g of GATEWAYS.filter((t) => targets.includes(t))) {
    const k = g.replace("-", "_");
    out[`${k}_over_baseline_json_rps`] = m.ratio("json-throughput", g, "baseline");
    out[`${k}_over_baseline_sse_rps`] = m.ratio("sse-throughput", g, "baseline");
    out[`${k}_over_baseline_json_rps_from_cpu`] = m.cpuRatio("json-throughput", g, "baseline");
    out[`${k}_over_baseline_sse_rps_from_cpu`] = m.cpuRatio("sse-throughput", g, "baseline");
    out[`${k}_added_p50_ms`] = m.added("json-latency", g, "latenciesMs", 50);
    out[`${k}_added_p99_ms`] = m.added("json-latency", g, "latenciesMs", 99);
    out[`${k}_added_ttft_p50_ms`] = m.added("paced-ttft", g, "firstTokenMs", 50);
  }
  return out;
}

function checks(
  m: Metrics,
  targets: TargetName[],
  r: Record<string, number | null>,
): TargetCheck[] {
  const out: TargetCheck[] = [];
  for (const g of GATEWAYS) {
    const present = targets.includes(g);
    const k = g.replace("-", "_");
    const check = (what: string, key: string, goal: string, ok: (v: number) => boolean): void => {
      const value = r[key] ?? null;
      out.push({
        name: `${g}: ${what}`,
        value: value ?? "not measured",
        goal,
        met: value === null || !present ? undefined : ok(value),
      });
    };
    check("throughput / baseline, JSON", `${k}_over_baseline_json_rps`, ">= 0.7", (v) => v >= 0.7);
    check("throughput / baseline, SSE", `${k}_over_baseline_sse_rps`, ">= 0.7", (v) => v >= 0.7);
    check("added p50 ms over direct", `${k}_added_p50_ms`, "<= 0.6", (v) => v <= 0.6);
    check("added p99 ms over direct", `${k}_added_p99_ms`, "<= 3", (v) => v <= 3);
    const sent = present ? m.sum(g, SSE, "completed") : 0;
    const bad = present ? m.sum(g, SSE, "undelivered") + m.sum(g, SSE, "errors") : 0;
    out.push({
      name: `${g}: SSE chunks delivered as sent`,
      value: present ? `${sent - bad}/${sent + m.sum(g, SSE, "errors")}` : "not measured",
      goal: "all",
      met: present ? bad === 0 && sent > 0 : undefined,
    });
  }
  return out;
}

export function summarise(
  name: string,
  targets: TargetName[],
  measurements: Measurements,
  gatewayMissing: string | undefined,
  options: BenchOptions,
): SectionReport {
  const m = new Metrics(measurements);
  const r = ratios(m, targets);
  const store = options.postgresUrl ? "Postgres (fresh database)" : "in-memory PGlite";
  const notes = [
    `gateway store: ${store}; gateway = guardrails off for the key, gateway-guarded = default policy`,
  ];
  if (gatewayMissing) notes.push(`gateway not measured: ${gatewayMissing}`);
  for (const target of targets) {
    const first = m.firstError(target, ALL);
    if (first) notes.push(`${target}: first error: ${first}`);
  }
  const perRound = Object.fromEntries(
    [...measurements].map(([key, runs]) => [
      key,
      runs.map((run) => ({
        completed: run.completed,
        errors: run.errors,
        undelivered: run.undelivered,
        altered: run.altered,
        seconds: round3(run.seconds),
        rps: round3(run.requestsPerSecond),
        p50_ms: round3(percentile(run.latenciesMs, 50)),
        p99_ms: round3(percentile(run.latenciesMs, 99)),
        ttft_p50_ms: run.firstTokenMs.length ? round3(percentile(run.firstTokenMs, 50)) : null,
        hop_cpu_us_per_request:
          run.hopCpuUsPerRequest === undefined ? null : round3(run.hopCpuUsPerRequest),
        upstream_cpu_us_per_request: round3(run.upstreamCpuUsPerRequest),
      })),
    ]),
  );
  return {
    name,
    table: table(m, targets),
    ratios: r,
    targets: checks(m, targets, r),
    notes,
    data: { rounds: options.rounds, gatewayStore: store, perRound },
  };
}
