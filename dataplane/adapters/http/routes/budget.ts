import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { BUDGET_PERIODS } from "../../../limits/budget-period.js";
import type { BudgetStatus } from "../../../limits/budget-status.js";
import { MAX_LIMIT } from "../../../limits/gcra.js";
import { rateLimitsFor } from "../../../limits/rate-limits.js";
import type { CustomerBudget } from "../../../store/budget-repository.js";
import { errorSchema, idParam } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { actingCustomer } from "./acting-customer.js";
import { budgetConfig, budgetStatus } from "../response-schemas.js";

/** What the budget routes need from the limits wiring. */
export interface BudgetApi {
  status(customerId: string): Promise<BudgetStatus>;
  config(customerId: string): Promise<CustomerBudget>;
  saveConfig(budget: CustomerBudget): Promise<void>;
}

const customerQuery = z.object({ customer_id: idParam.optional() });
const perMinute = z.number().int().min(1).max(MAX_LIMIT).nullable().optional();

const configBody = z
  .strictObject({
    limit_usd: z.number().min(0).max(1e12).nullable().optional(),
    period: z.enum(BUDGET_PERIODS).optional(),
    mode: z.enum(["hard", "soft"]).optional(),
    alert_thresholds: z.array(z.number().gt(0).max(10)).max(10).optional(),
    rate_limits: z
      .strictObject({ requests_per_minute: perMinute, tokens_per_minute: perMinute })
      .optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: {
    description: "admin key required (another customer, or rate_limits)",
    schema: errorSchema,
  },
  404: { description: "no such customer", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function budgetRoutes(ctx: AppContext, api: BudgetApi): AnyRouteSpec[] {
  const customerOf = async (caller: Caller | undefined, requested: string | undefined) => {
    const id = actingCustomer(caller as Caller, requested);
    const customer = await ctx.repos.customers.get(id);
    if (!customer) throw new GatewayError("resource_not_found", `no customer ${id}`);
    return customer;
  };
  const toJson = (b: CustomerBudget, tier: Parameters<typeof rateLimitsFor>[0]) => {
    const custom: { requestsPerMinute?: number; tokensPerMinute?: number } = {};
    if (b.requestsPerMinute !== null) custom.requestsPerMinute = b.requestsPerMinute;
    if (b.tokensPerMinute !== null) custom.tokensPerMinute = b.tokensPerMinute;
    const effective = rateLimitsFor(tier, custom);
    return {
      object: "budget_config" as const,
      customer_id: b.customerId,
      limit_usd: b.limitUsd,
      period: b.period,
      mode: b.mode,
      alert_thresholds: b.alertThresholds,
      rate_limits: {
        requests_per_minute: b.requestsPerMinute,
        tokens_per_minute: b.tokensPerMinute,
        tier,
        effective: {
          requests_per_minute: effective.requestsPerMinute,
          tokens_per_minute: effective.tokensPerMinute,
        },
      },
      updated_at: b.updatedAt?.toISOString() ?? null,
    };
  };
  return [
    route({
      method: "GET",
      path: "/api/v1/budget/status",
      tag: "budget",
      summary:
        "Spend, reservations, remaining budget and forecast of the current period (default: the caller's customer)",
      query: customerQuery,
      responses: { 200: { description: "budget status", schema: budgetStatus }, ...errors },
      handler: async ({ query, caller }) => {
        const customer = await customerOf(caller, query.customer_id);
        return { status: 200, body: await api.status(customer.id) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/budget/config",
      tag: "budget",
      summary: "Budget configuration and rate limits (default: the caller's customer)",
      query: customerQuery,
      responses: { 200: { description: "budget configuration", schema: budgetConfig }, ...errors },
      handler: async ({ query, caller }) => {
        const customer = await customerOf(caller, query.customer_id);
        return { status: 200, body: toJson(await api.config(customer.id), customer.tier) };
      },
    }),
    route({
      method: "PATCH",
      path: "/api/v1/budget/config",
      tag: "budget",
      summary:
        "Change the budget (limit_usd, period, mode, alert_thresholds); rate_limits need an admin key",
      query: customerQuery,
      body: configBody.meta({ id: "BudgetConfigUpdate" }),
      audit: "budget.update",
      responses: {
        200: { description: "the new budget configuration", schema: budgetConfig },
        ...errors,
      },
      handler: async ({ query, body, caller }) => {
        const customer = await customerOf(caller, query.customer_id);
        if (body.rate_limits && caller?.key.role !== "admin") {
          throw new GatewayError("insufficient_role", "only an admin key may set rate_limits");
        }
        const b = await api.config(customer.id);
        if (body.limit_usd !== undefined) b.limitUsd = body.limit_usd;
        if (body.period) b.period = body.period;
        if (body.mode) b.mode = body.mode;
        if (body.alert_thresholds)
          b.alertThresholds = [...body.alert_thresholds].sort((x, y) => x - y);
        const rl = body.rate_limits;
        if (rl?.requests_per_minute !== undefined) b.requestsPerMinute = rl.requests_per_minute;
        if (rl?.tokens_per_minute !== undefined) b.tokensPerMinute = rl.tokens_per_minute;
        await api.saveConfig(b);
        return { status: 200, body: toJson(await api.config(customer.id), customer.tier) };
      },
    }),
  ];
}
