import type { z } from "zod";
import type { AnalyticsService } from "../../../analytics/analytics-service.js";
import type { Caller } from "../../../core/identity.js";
import type { RollupScope } from "../../../store/analytics-repository.js";
import { errorSchema } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import {
  availabilityQuery,
  availabilityResponse,
  capacityResponse,
  errorBudgetQuery,
  errorBudgetResponse,
  latencyQuery,
  latencyResponse,
  timeseriesQuery,
  timeseriesResponse,
} from "./analytics-schemas.js";
import { actingCustomer } from "./acting-customer.js";

export type CapacityReport = (caller: Caller) => Promise<z.infer<typeof capacityResponse>>;

/**
 * Members see their own customer's calls; admins see every customer's, or one with ?customer_id=.
 */
function scopeOf(caller: Caller | undefined, customerId: string | undefined): RollupScope {
  const who = caller as Caller;
  if (who.key.role === "admin" && customerId === undefined) return "all";
  return { customerId: actingCustomer(who, customerId) };
}

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "a member key asked for another customer", schema: errorSchema },
  422: { description: "a query parameter is outside its bounds", schema: errorSchema },
};

export function analyticsRoutes(
  analytics: AnalyticsService,
  capacity: CapacityReport,
): AnyRouteSpec[] {
  return [
    route({
      method: "GET",
      path: "/api/v1/analytics/availability",
      tag: "analytics",
      summary:
        "Availability over the last 30 days, 7 days and 24 hours (see docs/observability.md)",
      query: availabilityQuery,
      responses: { 200: { description: "availability", schema: availabilityResponse }, ...errors },
      handler: async ({ caller, query }) => ({
        status: 200,
        body: await analytics.availability(scopeOf(caller, query.customer_id)),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/analytics/latency",
      tag: "analytics",
      summary: "Latency P50/P95/P99 per model over the last window_hours (1-720, default 24)",
      query: latencyQuery,
      responses: { 200: { description: "latency", schema: latencyResponse }, ...errors },
      handler: async ({ caller, query }) => ({
        status: 200,
        body: await analytics.latency(scopeOf(caller, query.customer_id), query.window_hours),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/analytics/error-budget",
      tag: "analytics",
      summary: "Error budget for the SLA tiers 99.0/99.5/99.9/99.95 over window_days (1-90)",
      query: errorBudgetQuery,
      responses: { 200: { description: "error budget", schema: errorBudgetResponse }, ...errors },
      handler: async ({ caller, query }) => ({
        status: 200,
        body: await analytics.errorBudget(scopeOf(caller, query.customer_id), query.window_days),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/analytics/timeseries",
      tag: "analytics",
      summary: "Request metrics in buckets of bucket_minutes (5-1440) over window_hours (1-720)",
      query: timeseriesQuery,
      responses: { 200: { description: "time series", schema: timeseriesResponse }, ...errors },
      handler: async ({ caller, query }) => ({
        status: 200,
        body: await analytics.timeseries(
          scopeOf(caller, query.customer_id),
          query.window_hours,
          query.bucket_minutes,
        ),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/system/capacity",
      tag: "system",
      summary: "Per deployment and backend: replicas, in-flight calls, concurrency, utilisation",
      responses: {
        200: { description: "capacity", schema: capacityResponse },
        401: errors[401],
      },
      handler: async ({ caller }) => ({ status: 200, body: await capacity(caller as Caller) }),
    }),
  ];
}
