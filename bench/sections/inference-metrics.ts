/**
 * Reductions over the inference section's runs. Throughput: median over rounds of req/s; a ratio
 * of two targets is the median of the per-round ratios (paired, so a noisy round moves both).
 * "Added" latency: median over rounds of (target's percentile - direct's in the same round), so
 * one noisy round cannot decide it. CPU per request: median over rounds.
 */
import type { LoadResult } from "../load/load-generator.js";
import { median, percentile } from "../load/percentile.js";
import type { TargetName } from "./inference-targets.js";

export type ScenarioName = "json-throughput" | "sse-throughput" | "json-latency" | "paced-ttft";

/** One load run, plus the CPU time spent per request by the hop (proxy/gateway) and the upstream. */
export interface Run extends LoadResult {
  hopCpuUsPerRequest: number | undefined;
  upstreamCpuUsPerRequest: number;
}
export type Measurements = Map<`${ScenarioName}/${TargetName}`, Run[]>;
type SampleField = "latenciesMs" | "firstTokenMs";
type CountField = "completed" | "errors" | "undelivered" | "altered";

export const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export class Metrics {
  constructor(private readonly measurements: Measurements) {}

  runs(scenario: ScenarioName, target: TargetName): Run[] {
    return this.measurements.get(`${scenario}/${target}`) ?? [];
  }

  /** Percentile of all samples of all rounds. */
  pooled(scenario: ScenarioName, target: TargetName, field: SampleField, p: number): number {
    return percentile(
      this.runs(scenario, target).flatMap((r) => r[field]),
      p,
    );
  }

  rps(scenario: ScenarioName, target: TargetName): number {
    return median(this.runs(scenario, target).map((r) => r.requestsPerSecond));
  }

  ratio(scenario: ScenarioName, top: TargetName, bottom: TargetName): number | null {
    const a = this.runs(scenario, top);
    const b = this.runs(scenario, bottom);
    if (a.length === 0 || b.length === 0) return null;
    return round3(median(a.map((r, i) => r.requestsPerSecond / (b[i]?.requestsPerSecond ?? NaN))));
  }

  added(scenario: ScenarioName, target: TargetName, field: SampleField, p: number): number | null {
    const direct = this.runs(scenario, "direct");
    const diffs = this.runs(scenario, target).flatMap((r, i) => {
      const base = direct[i];
      if (!base || r[field].length === 0 || base[field].length === 0) return [];
      return [percentile(r[field], p) - percentile(base[field], p)];
    });
    return diffs.length ? round3(median(diffs)) : null;
  }

  hopCpu(scenario: ScenarioName, target: TargetName): number | null {
    const values = this.runs(scenario, target).flatMap((r) => r.hopCpuUsPerRequest ?? []);
    return values.length ? median(values) : null;
  }

  upstreamCpu(scenario: ScenarioName, target: TargetName): number {
    return median(this.runs(scenario, target).map((r) => r.upstreamCpuUsPerRequest));
  }

  /** Throughput ratio predicted from CPU time per request: bottom's CPU / top's CPU. */
  cpuRatio(scenario: ScenarioName, top: TargetName, bottom: TargetName): number | null {
    const a = this.hopCpu(scenario, top);
    const b = this.hopCpu(scenario, bottom);
    return a === null || b === null ? null : round3(b / a);
  }

  sum(target: TargetName, scenarios: ScenarioName[], field: CountField): number {
    return scenarios.flatMap((s) => this.runs(s, target)).reduce((total, r) => total + r[field], 0);
  }

  firstError(target: TargetName, scenarios: ScenarioName[]): string | undefined {
    return scenarios.flatMap((s) => this.runs(s, target)).find((r) => r.firstError)?.firstError;
  }
}
