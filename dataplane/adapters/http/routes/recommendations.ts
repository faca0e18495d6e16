import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import type { Recommendation } from "../../../limits/recommendations.js";
import { errorSchema } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { recommendationsResponse } from "../response-schemas.js";

export type RecommendationSource = (
  caller: Caller,
  windowDays: number,
) => Promise<Recommendation[]>;

export function recommendationRoutes(
  _ctx: AppContext,
  recommend: RecommendationSource,
): AnyRouteSpec[] {
  return [
    route({
      method: "GET",
      path: "/api/v1/recommendations",
      tag: "recommendations",
      summary: "Usage-based hints for the caller's customer, each with its evidence and saving",
      query: z.object({ window_days: z.coerce.number().int().min(1).max(90).default(30) }),
      responses: {
        200: { description: "recommendations", schema: recommendationsResponse },
        401: { description: "missing or invalid API key", schema: errorSchema },
        422: { description: "window_days outside 1..90", schema: errorSchema },
      },
      handler: async ({ query, caller }) => {
        const who = caller as Caller;
        const data = await recommend(who, query.window_days);
        return {
          status: 200,
          body: {
            object: "list",
            customer_id: who.customer.id,
            window_days: query.window_days,
            data,
          },
        };
      },
    }),
  ];
}
