import { z } from "zod";
import { ROUTE_STRATEGIES } from "./route-config.js";

const modelName = z.string().trim().min(1).max(256);
const customerId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, "malformed id");
const routeName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(
    (s) => ![...s].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127),
    "must not contain control characters",
  );

const headerMatch = z
  .record(
    z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "not a header name"),
    z.string().max(1024),
  )
  .refine((h) => Object.keys(h).length <= 16, "at most 16 header conditions");

export const routeMatchSchema = z.strictObject({
  model: modelName,
  headers: headerMatch.optional(),
});

export const routeTargetSchema = z.strictObject({
  model: modelName,
  weight: z.number().min(0).max(100),
});

const targets = z.array(routeTargetSchema).min(1, "at least one target").max(16);

/** RouteCreate. `customer_id` absent means the caller's own customer. */
export const routeCreateSchema = z
  .strictObject({
    customer_id: customerId.optional(),
    name: routeName.optional(),
    match: routeMatchSchema,
    strategy: z.enum(ROUTE_STRATEGIES),
    targets,
    enabled: z.boolean().default(true),
  })
  .superRefine((body, ctx) => {
    if ((body.strategy === "weighted" || body.strategy === "ab") && totalWeight(body) <= 0) {
      ctx.addIssue({
        code: "custom",
        path: ["targets"],
        message: `a ${body.strategy} route needs at least one target with a weight above 0`,
      });
    }
    if (body.strategy === "ab" && body.targets.length < 2) {
      ctx.addIssue({ code: "custom", path: ["targets"], message: "an ab route needs two arms" });
    }
  });

/** RouteUpdate: any subset; `customer_id`, if sent, must be the route's own (it cannot move). */
export const routeUpdateSchema = z.strictObject({
  customer_id: customerId.optional(),
  name: routeName.optional(),
  match: routeMatchSchema.optional(),
  strategy: z.enum(ROUTE_STRATEGIES).optional(),
  targets: targets.optional(),
  enabled: z.boolean().optional(),
});

/** InferenceContext: the call to route in a dry run. */
export const inferenceContextSchema = z.strictObject({
  customer_id: customerId.optional(),
  model: modelName,
  headers: z.record(z.string().max(128), z.string().max(4096)).optional(),
});

function totalWeight(body: { targets: { weight: number }[] }): number {
  return body.targets.reduce((sum, t) => sum + t.weight, 0);
}
