import { z } from "zod";
import { idParam } from "../common-schemas.js";
import { SLA_TIERS } from "../../../analytics/availability.js";

const percent = z.number().min(0).max(100).nullable();

export const availabilityResponse = z
  .object({
    object: z.literal("availability"),
    windows: z.array(
      z.object({
        window: z.enum(["30d", "7d", "24h"]),
        start: z.string(),
        end: z.string(),
        requests: z.number().int(),
        counted_requests: z.number().int(),
        failures: z.number().int(),
        availability_percent: percent,
      }),
    ),
  })
  .meta({ id: "AvailabilityResponse" });

export const latencyResponse = z
  .object({
    object: z.literal("latency"),
    window_hours: z.number().int(),
    start: z.string(),
    end: z.string(),
    models: z.array(
      z.object({
        model: z.string(),
        requests: z.number().int(),
        completed: z.number().int(),
        p50_ms: z.number().nullable(),
        p95_ms: z.number().nullable(),
        p99_ms: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: "LatencyResponse" });

export const errorBudgetResponse = z
  .object({
    object: z.literal("error_budget"),
    window_days: z.number().int(),
    start: z.string(),
    end: z.string(),
    requests: z.number().int(),
    counted_requests: z.number().int(),
    failures: z.number().int(),
    availability_percent: percent,
    tiers: z.array(
      z.object({
        tier: z.enum(SLA_TIERS),
        target_percent: z.number(),
        allowed_failures: z.number(),
        failures: z.number().int(),
        budget_consumed_percent: z.number().min(0),
        budget_remaining_percent: z.number().min(0).max(100),
        met: z.boolean(),
      }),
    ),
  })
  .meta({ id: "ErrorBudgetResponse" });

export const timeseriesResponse = z
  .object({
    object: z.literal("timeseries"),
    window_hours: z.number().int(),
    bucket_minutes: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.string(),
        requests: z.number().int(),
        failures: z.number().int(),
        refusals: z.number().int(),
        rate_limited: z.number().int(),
        prompt_tokens: z.number().int(),
        completion_tokens: z.number().int(),
        cost_usd: z.number(),
        avg_latency_ms: z.number().nullable(),
        availability_percent: percent,
      }),
    ),
  })
  .meta({ id: "TimeseriesResponse" });

export const capacityResponse = z
  .object({
    object: z.literal("capacity"),
    targets: z.array(
      z.object({
        id: z.string(),
        kind: z.enum(["deployment", "backend"]),
        models: z.array(z.string()),
        status: z.string(),
        healthy: z.boolean(),
        min_replicas: z.number().int().nullable(),
        max_replicas: z.number().int().nullable(),
        target_concurrency: z.number().int().nullable(),
        in_flight: z.number().int(),
        capacity: z.number().int().nullable(),
        utilisation_percent: z.number().nullable(),
        queued: z.number().int(),
      }),
    ),
  })
  .meta({ id: "CapacityResponse" });

/** Admins may narrow to one customer; members only ever see their own. */
const scopeQuery = { customer_id: idParam.optional() };

export const availabilityQuery = z.strictObject(scopeQuery);
export const latencyQuery = z.strictObject({
  ...scopeQuery,
  window_hours: z.coerce.number().int().min(1).max(720).default(24),
});
export const errorBudgetQuery = z.strictObject({
  ...scopeQuery,
  window_days: z.coerce.number().int().min(1).max(90).default(30),
});
export const timeseriesQuery = z.strictObject({
  ...scopeQuery,
  window_hours: z.coerce.number().int().min(1).max(720).default(24),
  bucket_minutes: z.coerce.number().int().min(5).max(1440).default(60),
});
