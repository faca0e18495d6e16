/**
 * Turns the inference section's raw runs into its table, ratios and target checks.
 * Throughput: median over rounds of each target's req/s; the gateway/baseline ratio is the median
 * of the per-round ratios (paired, so a noisy round moves both). Latency and time to first token:
 * the table shows percentiles of all samples pooled over rounds; "added" is the median over rounds
 * of (target's percentile - direct's percentile in the same round), so one noisy round cannot
 * decide it. CPU per request: median over rounds of the hop process's CPU time / requests served.
 */
import type { BenchOptions } from "../config/bench-options.js";
import type { LoadResult } from "../load/load-generator.js";
import { median, percentile } from "../load/percentile.js";
import type { TargetName } from "./inference-targets.js";
import type { SectionReport, TargetCheck } from "./section.js";

export type ScenarioName = "json-throughput" | "sse-throughput" | "json-latency" | "paced-ttft";
/** One load run, plus the CPU time spent per request by the hop (proxy/gateway) and the upstream. */
export interface Run extends LoadResult {
  hopCpuUsPerRequest: number | undefined;
  upstreamCpuUsPerRequest: number;
}
export type Measurements = Map<`${ScenarioName}/${TargetName}`, Run[]>;

const round2 = (n: number): number => Math.round(n * 100) / 100;
const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export function summarise(
  name: string,
  targetNames: TargetName[],
  measurements: Measurements,
  gatewayMissing: string | undefined,
  options: BenchOptions,
): SectionReport {
  const runs = (scenario: ScenarioName, target: TargetName): Run[] =>
    measurements.get(`${scenario}/${target}`) ?? [];
  const pooled = (
    scenario: ScenarioName,
    target: TargetName,
    field: "latenciesMs" | "firstTokenMs",
  ) => runs(scenario, target).flatMap((r) => r[field]);
  const rps = (scenario: ScenarioName, target: TargetName): number =>
    median(runs(scenario, target).map((r) => r.requestsPerSecond));
  const pairedRatio = (
    scenario: ScenarioName,
    top: TargetName,
    bottom: TargetName,
  ): number | null => {
    const a = runs(scenario, top);
    const b = runs(scenario, bottom);
    if (a.length === 0 || b.length === 0) return null;
    return round3(median(a.map((r, i) => r.requestsPerSecond / (b[i]?.requestsPerSecond ?? NaN))));
  };
  /** Median over rounds of (target's percentile - direct's percentile) in the same round. */
  const added = (
    scenario: ScenarioName,
    target: TargetName,
    field: "latenciesMs" | "firstTokenMs",
    p: number,
  ): number | null => {
    const own = runs(scenario, target);
    const direct = runs(scenario, "direct");
    const diffs = own.flatMap((r, i) => {
      const base = direct[i];
      if (!base || r[field].length === 0 || base[field].length === 0) return [];
      return [percentile(r[field], p) - percentile(base[field], p)];
    });
    return diffs.length ? round3(median(diffs)) : null;
  };
  const hopCpu = (scenario: ScenarioName, target: TargetName): number | null => {
    const values = runs(scenario, target).flatMap((r) => r.hopCpuUsPerRequest ?? []);
    return values.length ? median(values) : null;
  };
  const cpuCell = (value: number | null): string => (value === null ? "-" : value.toFixed(0));
  const cpuRatio = (scenario: ScenarioName): number | null => {
    const gateway = hopCpu(scenario, "gateway");
    const baseline = hopCpu(scenario, "baseline");
    return gateway === null || baseline === null ? null : round3(baseline / gateway);
  };
  const sum = (
    target: TargetName,
    scenarios: ScenarioName[],
    field: "completed" | "errors" | "undelivered",
  ) => scenarios.flatMap((s) => runs(s, target)).reduce((total, r) => total + r[field], 0);
  const sse: ScenarioName[] = ["sse-throughput", "paced-ttft"];
  const all: ScenarioName[] = ["json-throughput", "sse-throughput", "json-latency", "paced-ttft"];

  const row = (label: string, value: (t: TargetName) => string): string[] => [
    label,
    ...targetNames.map(value),
  ];
  const table: string[][] = [
    ["metric", ...targetNames],
    row("JSON chat req/s, 50 conns (median of rounds)", (t) =>
      rps("json-throughput", t).toFixed(0),
    ),
    row("SSE chat req/s, 50 conns (median of rounds)", (t) => rps("sse-throughput", t).toFixed(0)),
    row("JSON latency p50 ms, 1 conn", (t) =>
      percentile(pooled("json-latency", t, "latenciesMs"), 50).toFixed(3),
    ),
    row("JSON latency p99 ms, 1 conn", (t) =>
      percentile(pooled("json-latency", t, "latenciesMs"), 99).toFixed(3),
    ),
    row("TTFT p50 ms, paced 10x20 ms", (t) =>
      percentile(pooled("paced-ttft", t, "firstTokenMs"), 50).toFixed(3),
    ),
    row("TTFT p99 ms, paced 10x20 ms", (t) =>
      percentile(pooled("paced-ttft", t, "firstTokenMs"), 99).toFixed(3),
    ),
    row(
      "SSE responses delivered as sent",
      (t) => `${sum(t, sse, "completed") - sum(t, sse, "undelivered")}/${sum(t, sse, "completed")}`,
    ),
    row("hop CPU us/request, JSON 50 conns", (t) => cpuCell(hopCpu("json-throughput", t))),
    row("hop CPU us/request, SSE 50 conns", (t) => cpuCell(hopCpu("sse-throughput", t))),
    row("upstream CPU us/request, JSON 50 conns", (t) =>
      median(runs("json-throughput", t).map((r) => r.upstreamCpuUsPerRequest)).toFixed(0),
    ),
    row("failed requests (all scenarios)", (t) => String(sum(t, all, "errors"))),
  ];

  const ratios: Record<string, number | null> = {
    gateway_over_baseline_json_rps: pairedRatio("json-throughput", "gateway", "baseline"),
    gateway_over_baseline_sse_rps: pairedRatio("sse-throughput", "gateway", "baseline"),
    gateway_over_baseline_json_rps_from_cpu: cpuRatio("json-throughput"),
    gateway_over_baseline_sse_rps_from_cpu: cpuRatio("sse-throughput"),
    baseline_over_direct_json_rps: pairedRatio("json-throughput", "baseline", "direct"),
    baseline_over_direct_sse_rps: pairedRatio("sse-throughput", "baseline", "direct"),
    gateway_added_p50_ms: added("json-latency", "gateway", "latenciesMs", 50),
    gateway_added_p99_ms: added("json-latency", "gateway", "latenciesMs", 99),
    baseline_added_p50_ms: added("json-latency", "baseline", "latenciesMs", 50),
    baseline_added_p99_ms: added("json-latency", "baseline", "latenciesMs", 99),
    gateway_added_ttft_p50_ms: added("paced-ttft", "gateway", "firstTokenMs", 50),
    baseline_added_ttft_p50_ms: added("paced-ttft", "baseline", "firstTokenMs", 50),
  };

  const hasGateway = targetNames.includes("gateway");
  const check = (
    checkName: string,
    value: number | null,
    goal: string,
    ok: (v: number) => boolean,
  ): TargetCheck => ({
    name: checkName,
    value: value ?? "not measured",
    goal,
    met: value === null || !hasGateway ? undefined : ok(value),
  });
  const gatewaySse = hasGateway ? sum("gateway", sse, "completed") : 0;
  const gatewayUndelivered = hasGateway
    ? sum("gateway", sse, "undelivered") + sum("gateway", sse, "errors")
    : 0;
  const targets: TargetCheck[] = [
    check(
      "gateway/baseline JSON throughput",
      ratios.gateway_over_baseline_json_rps ?? null,
      ">= 0.7",
      (v) => v >= 0.7,
    ),
    check(
      "gateway/baseline SSE throughput",
      ratios.gateway_over_baseline_sse_rps ?? null,
      ">= 0.7",
      (v) => v >= 0.7,
    ),
    check(
      "gateway added p50 ms over direct",
      ratios.gateway_added_p50_ms ?? null,
      "<= 0.6",
      (v) => v <= 0.6,
    ),
    check(
      "gateway added p99 ms over direct",
      ratios.gateway_added_p99_ms ?? null,
      "<= 3",
      (v) => v <= 3,
    ),
    {
      name: "gateway SSE chunks delivered as sent",
      value: hasGateway ? `${gatewaySse - gatewayUndelivered}/${gatewaySse}` : "not measured",
      goal: "all",
      met: hasGateway ? gatewayUndelivered === 0 && gatewaySse > 0 : undefined,
    },
  ];

  const notes: string[] = [];
  if (gatewayMissing) notes.push(`gateway not measured: ${gatewayMissing}`);
  for (const target of targetNames) {
    const first = all.flatMap((s) => runs(s, target)).find((r) => r.firstError)?.firstError;
    if (first) notes.push(`${target}: first error: ${first}`);
  }

  const raw = Object.fromEntries(
    [...measurements].map(([key, results]) => [
      key,
      results.map((r) => ({
        completed: r.completed,
        errors: r.errors,
        undelivered: r.undelivered,
        seconds: round3(r.seconds),
        rps: round2(r.requestsPerSecond),
        p50_ms: round3(percentile(r.latenciesMs, 50)),
        p99_ms: round3(percentile(r.latenciesMs, 99)),
        ttft_p50_ms: r.firstTokenMs.length ? round3(percentile(r.firstTokenMs, 50)) : null,
        hop_cpu_us_per_request:
          r.hopCpuUsPerRequest === undefined ? null : round2(r.hopCpuUsPerRequest),
        upstream_cpu_us_per_request: round2(r.upstreamCpuUsPerRequest),
      })),
    ]),
  );
  return { name, table, ratios, targets, notes, data: { rounds: options.rounds, perRound: raw } };
}
