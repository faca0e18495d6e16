import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller, Tier } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import { actsForAnyCustomer } from "../../../core/permissions.js";
import { armStats, errorRateTest } from "../../../routing/routes/ab-statistics.js";
import type { RouteConfig } from "../../../routing/routes/route-config.js";
import {
  inferenceContextSchema,
  routeCreateSchema,
  routeUpdateSchema,
} from "../../../routing/routes/route-schema.js";
import { decisionJson, routeJson } from "../../../routing/routes/route-wire.js";
import { resolveCallRoute } from "../../../routing/routes/resolve-call-route.js";
import { routeObservations } from "../../../store/route-repository.js";
import { errorSchema, idParam } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { parseOrThrow } from "../validation.js";
import { actingCustomer } from "./acting-customer.js";
import { abResults, routeConfig, routeListResponse, routingDecision } from "../response-schemas.js";

const customerQuery = z.strictObject({ customer_id: idParam.optional() });
const AB_MAX_CALLS = 100_000;
const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "acting for another customer needs an admin key", schema: errorSchema },
  404: { description: "no such route (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

/** Smart routing (spec 4.5): customers' routes, a dry-run evaluation and A/B results. */
export function routeRoutes(ctx: AppContext): AnyRouteSpec[] {
  const repo = ctx.repos.routes;
  const who = (c: Caller | undefined) => c as Caller;
  const params = z.object({ route_id: idParam });

  /** The route if the caller may see it: its own customer's, or any customer's for an admin. */
  async function visible(caller: Caller, id: string, customer?: string): Promise<RouteConfig> {
    const r = await repo.get(id);
    const allowed =
      customer !== undefined
        ? r?.customerId === actingCustomer(caller, customer)
        : r?.customerId === caller.customer.id || actsForAnyCustomer(caller.key.role);
    if (!r || !allowed) throw new GatewayError("resource_not_found", `route ${id} not found`);
    return r;
  }

  async function tierOf(caller: Caller, customerId: string): Promise<Tier> {
    if (customerId === caller.customer.id) return caller.customer.tier;
    const customer = await ctx.repos.customers.get(customerId);
    if (!customer) throw new GatewayError("resource_not_found", `customer ${customerId} not found`);
    return customer.tier;
  }

  return [
    route({
      method: "POST",
      path: "/api/v1/routes",
      tag: "routing",
      summary: "Create a smart route (RouteCreate) for a customer",
      audit: "route.create",
      body: routeCreateSchema.meta({ id: "RouteCreate" }),
      responses: { 201: { description: "RouteConfig", schema: routeConfig }, ...errors },
      handler: async ({ body, caller }) => {
        const customerId = actingCustomer(who(caller), body.customer_id);
        const created = await repo.create({
          id: newId("route"),
          customerId,
          name: body.name ?? `route for ${body.match.model}`,
          match: { model: body.match.model, headers: body.match.headers ?? {} },
          strategy: body.strategy,
          targets: body.targets,
          enabled: body.enabled,
        });
        await ctx.routing.changed();
        return { status: 201, body: routeJson(created) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/routes",
      tag: "routing",
      summary: "A customer's routes, in matching order (RouteListResponse)",
      query: customerQuery,
      responses: {
        200: { description: "RouteListResponse", schema: routeListResponse },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const routes = await repo.listForCustomer(customerId);
        return {
          status: 200,
          body: {
            object: "list",
            data: routes.map(routeJson),
            total: routes.length,
            has_more: false,
          },
        };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/routes/evaluate",
      tag: "routing",
      summary: "Dry run: the routing decision for an InferenceContext, without inference",
      body: inferenceContextSchema.meta({ id: "InferenceContext" }),
      responses: {
        200: { description: "RoutingDecision", schema: routingDecision },
        ...errors,
        403: { description: "the model used needs a higher tier", schema: errorSchema },
        404: { description: "no routable model for this context", schema: errorSchema },
      },
      handler: async ({ body, caller }) => {
        const customerId = actingCustomer(who(caller), body.customer_id);
        const decision = resolveCallRoute(ctx.routing.current, ctx.health, {
          customerId,
          tier: await tierOf(who(caller), customerId),
          requestedModel: body.model,
          requestHeaders: body.headers,
        });
        return { status: 200, body: decisionJson(customerId, body.model, decision) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/routes/:route_id",
      tag: "routing",
      summary: "One route (RouteConfig)",
      params,
      query: customerQuery,
      responses: { 200: { description: "RouteConfig", schema: routeConfig }, ...errors },
      handler: async ({ params: p, query, caller }) => ({
        status: 200,
        body: routeJson(await visible(who(caller), p.route_id, query.customer_id)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/routes/:route_id",
      tag: "routing",
      summary: "Change a route (RouteUpdate: any subset of the fields)",
      audit: "route.update",
      params,
      body: routeUpdateSchema.meta({ id: "RouteUpdate" }),
      responses: { 200: { description: "RouteConfig", schema: routeConfig }, ...errors },
      handler: async ({ params: p, body, caller }) => {
        const current = await visible(who(caller), p.route_id, body.customer_id);
        // The result must be a valid route as a whole (e.g. an ab route keeps two arms).
        parseOrThrow(
          routeCreateSchema,
          {
            name: body.name ?? current.name,
            match: body.match ?? current.match,
            strategy: body.strategy ?? current.strategy,
            targets: body.targets ?? current.targets,
            enabled: body.enabled ?? current.enabled,
          },
          "body",
        );
        const updated = await repo.update(current.id, {
          name: body.name,
          match: body.match && { model: body.match.model, headers: body.match.headers ?? {} },
          strategy: body.strategy,
          targets: body.targets,
          enabled: body.enabled,
        });
        if (!updated) throw new GatewayError("resource_not_found", `route ${p.route_id} not found`);
        await ctx.routing.changed();
        return { status: 200, body: routeJson(updated) };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/routes/:route_id",
      tag: "routing",
      summary: "Delete a route",
      audit: "route.delete",
      params,
      query: customerQuery,
      responses: { 204: { description: "deleted" }, ...errors },
      handler: async ({ params: p, query, caller }) => {
        const current = await visible(who(caller), p.route_id, query.customer_id);
        await repo.delete(current.id);
        await ctx.routing.changed();
        return { status: 204 };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/routes/:route_id/ab-results",
      tag: "routing",
      summary: "A/B results from the audit log: per-arm figures and a z-test on error rates",
      params,
      query: customerQuery,
      responses: {
        200: { description: "A/B results (free-form JSON)", schema: abResults },
        ...errors,
      },
      handler: async ({ params: p, query, caller }) => {
        const r = await visible(who(caller), p.route_id, query.customer_id);
        const observations = await routeObservations(ctx.db, r.customerId, r.id, AB_MAX_CALLS);
        const arms = armStats(
          r.targets.map((t) => t.model),
          observations,
        );
        const [a, b] = arms;
        return {
          status: 200,
          body: {
            object: "ab_results",
            route_id: r.id,
            customer_id: r.customerId,
            strategy: r.strategy,
            calls: observations.length,
            truncated: observations.length >= AB_MAX_CALLS,
            error_definition: "outcome upstream_error or stream_failed, or HTTP status >= 500",
            arms,
            analysis: a && b ? errorRateTest(a, b) : null,
          },
        };
      },
    }),
  ];
}
