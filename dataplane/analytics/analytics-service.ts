import type { Clock } from "../core/clock.js";
import {
  emptyCounters,
  type AnalyticsRepository,
  type RollupCounters,
  type RollupScope,
  type RollupTable,
} from "../store/analytics-repository.js";
import { availabilityPercent, errorBudget, SLA_TIERS } from "./availability.js";
import { mergeSketches, quantileMs } from "./latency-sketch.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Segment {
  table: RollupTable;
  from: Date;
  to: Date;
}

/**
 * The rollup rows that cover [from, to) (minute resolution): hour rows for the whole hours in the
 * middle, minute rows for the partial hours at either end. A 30-day window reads about 720 hour
 * rows and at most 120 minute rows per customer and model, whatever the number of calls.
 */
export function segments(from: number, to: number): Segment[] {
  const start = Math.floor(from / MINUTE_MS) * MINUTE_MS;
  const end = Math.floor(to / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const firstHour = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor(end / HOUR_MS) * HOUR_MS;
  if (firstHour >= lastHour)
    return [{ table: "analytics_minute", from: new Date(start), to: new Date(end) }];
  const out: Segment[] = [];
  if (start < firstHour)
    out.push({ table: "analytics_minute", from: new Date(start), to: new Date(firstHour) });
  out.push({ table: "analytics_hour", from: new Date(firstHour), to: new Date(lastHour) });
  if (lastHour < end)
    out.push({ table: "analytics_minute", from: new Date(lastHour), to: new Date(end) });
  return out;
}

function add(into: RollupCounters, more: RollupCounters): void {
  for (const k of Object.keys(into) as (keyof RollupCounters)[]) into[k] += more[k];
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The analytics endpoints' answers, read from the rollups (never from the calls themselves). */
export class AnalyticsService {
  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly clock: Clock,
  ) {}

  private async totals(scope: RollupScope, from: number, to: number): Promise<RollupCounters> {
    const sum = emptyCounters();
    const parts = await Promise.all(
      segments(from, to).map((s) => this.repo.totals(s.table, scope, s.from, s.to)),
    );
    for (const p of parts) add(sum, p);
    return sum;
  }

  async availability(scope: RollupScope) {
    const now = this.clock.now();
    const windows = [
      ["30d", 30 * DAY_MS],
      ["7d", 7 * DAY_MS],
      ["24h", DAY_MS],
    ] as const;
    const data = await Promise.all(
      windows.map(async ([window, size]) => {
        const t = await this.totals(scope, now - size, now);
        return {
          window,
          start: new Date(now - size).toISOString(),
          end: new Date(now).toISOString(),
          requests: t.requests,
          counted_requests: t.requests - t.refusals,
          failures: t.failures,
          availability_percent: availabilityPercent(t.requests, t.failures, t.refusals),
        };
      }),
    );
    return { object: "availability", windows: data };
  }

  async latency(scope: RollupScope, windowHours: number) {
    const now = this.clock.now();
    const from = now - windowHours * HOUR_MS;
    const byModel = new Map<string, { requests: number; sketches: Uint8Array[] }>();
    for (const s of segments(from, now)) {
      for (const row of await this.repo.byModel(s.table, scope, s.from, s.to)) {
        const m = byModel.get(row.model) ?? { requests: 0, sketches: [] };
        m.requests += row.requests;
        m.sketches.push(...(row.sketches ?? []));
        byModel.set(row.model, m);
      }
    }
    const models = [...byModel]
      .map(([model, m]) => {
        const sketch = mergeSketches(m.sketches);
        return {
          model,
          requests: m.requests,
          completed: sketch?.count ?? 0,
          p50_ms: quantileMs(sketch, 0.5),
          p95_ms: quantileMs(sketch, 0.95),
          p99_ms: quantileMs(sketch, 0.99),
        };
      })
      .sort((a, b) => a.model.localeCompare(b.model));
    return {
      object: "latency",
      window_hours: windowHours,
      start: new Date(from).toISOString(),
      end: new Date(now).toISOString(),
      models,
    };
  }

  async errorBudget(scope: RollupScope, windowDays: number) {
    const now = this.clock.now();
    const from = now - windowDays * DAY_MS;
    const t = await this.totals(scope, from, now);
    const counted = t.requests - t.refusals;
    return {
      object: "error_budget",
      window_days: windowDays,
      start: new Date(from).toISOString(),
      end: new Date(now).toISOString(),
      requests: t.requests,
      counted_requests: counted,
      failures: t.failures,
      availability_percent: availabilityPercent(t.requests, t.failures, t.refusals),
      tiers: SLA_TIERS.map((tier) => errorBudget(counted, t.failures, tier)),
    };
  }

  async timeseries(scope: RollupScope, windowHours: number, bucketMinutes: number) {
    const now = this.clock.now();
    const size = bucketMinutes * MINUTE_MS;
    const from = Math.floor((now - windowHours * HOUR_MS) / size) * size;
    // Buckets a whole number of hours long can use hour rows; others need minute rows.
    const parts =
      size % HOUR_MS === 0
        ? segments(from, now)
        : [{ table: "analytics_minute" as const, from: new Date(from), to: new Date(now + 1) }];
    const buckets = new Map<number, RollupCounters>();
    for (const s of parts) {
      for (const row of await this.repo.series(s.table, scope, s.from, s.to, size / 1000)) {
        const at = row.bucket * 1000;
        const b = buckets.get(at) ?? emptyCounters();
        add(b, row);
        buckets.set(at, b);
      }
    }
    const data = [];
    for (let at = from; at <= now; at += size) {
      const b = buckets.get(at) ?? emptyCounters();
      const completed = b.requests - b.failures - b.refusals;
      data.push({
        start: new Date(at).toISOString(),
        requests: b.requests,
        failures: b.failures,
        refusals: b.refusals,
        rate_limited: b.rateLimited,
        prompt_tokens: b.promptTokens,
        completion_tokens: b.completionTokens,
        cost_usd: round(b.costUsd, 6),
        avg_latency_ms: completed > 0 ? round(b.latencyMsSum / completed, 1) : null,
        availability_percent: availabilityPercent(b.requests, b.failures, b.refusals),
      });
    }
    return {
      object: "timeseries",
      window_hours: windowHours,
      bucket_minutes: bucketMinutes,
      buckets: data,
    };
  }
}
