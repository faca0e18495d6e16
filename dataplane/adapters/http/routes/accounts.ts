import { z } from "zod";
import {
  CLASSIFICATION_LEVELS,
  DEFAULT_CUSTOMER_ID,
  ROLES,
  TIERS,
  type ApiKeyRecord,
  type Caller,
  type Customer,
} from "../../../core/identity.js";
import type { AppContext } from "../../../app/context.js";
import {
  displayName,
  errorSchema,
  idParam,
  listBody,
  listOf,
  pageQuery,
} from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";

const customerSchema = z
  .object({
    id: z.string(),
    object: z.literal("customer"),
    name: z.string(),
    tier: z.enum(TIERS),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "CustomerResponse" });

const keySchema = z
  .object({
    id: z.string(),
    object: z.literal("api_key"),
    customer_id: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    classification_floor: z.enum(CLASSIFICATION_LEVELS),
    hint: z.string(),
    status: z.enum(["active", "revoked"]),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: "ApiKeyResponse" });

const createdKeySchema = keySchema
  .extend({
    key: z.string().describe("The plaintext key. Shown once; only its hash is stored."),
  })
  .meta({ id: "CreatedApiKeyResponse" });

const createCustomerBody = z.strictObject({ name: displayName, tier: z.enum(TIERS) });
const updateCustomerBody = z
  .strictObject({ name: displayName.optional(), tier: z.enum(TIERS).optional() })
  .refine((b) => b.name !== undefined || b.tier !== undefined, "nothing to update");
const createKeyBody = z.strictObject({
  customer_id: idParam.default(DEFAULT_CUSTOMER_ID),
  name: displayName,
  role: z.enum(ROLES).default("member"),
  classification_floor: z
    .enum(CLASSIFICATION_LEVELS)
    .optional()
    .describe("Default: the creating key's floor; never below it"),
});
const keyListQuery = pageQuery.extend({ customer_id: idParam.optional() });

function customerJson(c: Customer) {
  return {
    id: c.id,
    object: "customer" as const,
    name: c.name,
    tier: c.tier,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

function keyJson(k: ApiKeyRecord) {
  return {
    id: k.id,
    object: "api_key" as const,
    customer_id: k.customerId,
    name: k.name,
    role: k.role,
    classification_floor: k.classificationFloor,
    hint: k.hint,
    status: k.revokedAt === null ? ("active" as const) : ("revoked" as const),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "the key's role may not do this", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function accountRoutes(ctx: AppContext): AnyRouteSpec[] {
  const caller = (c: Caller | undefined) => c as Caller;
  return [
    route({
      method: "POST",
      path: "/api/v1/customers",
      tag: "accounts",
      summary: "Create a customer (admin)",
      audit: "customer.create",
      body: createCustomerBody.meta({ id: "CreateCustomerRequest" }),
      responses: { 201: { description: "created", schema: customerSchema }, ...errors },
      handler: async ({ body, caller: c }) => ({
        status: 201,
        body: customerJson(await ctx.accounts.createCustomer(caller(c), body)),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/customers",
      tag: "accounts",
      summary: "List customers (admin)",
      query: pageQuery,
      responses: { 200: { description: "customers", schema: listOf(customerSchema) }, ...errors },
      handler: async ({ query, caller: c }) => {
        const rows = await ctx.accounts.listCustomers(caller(c), {
          ...query,
          limit: query.limit + 1,
        });
        return { status: 200, body: listBody(rows.map(customerJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/customers/:customer_id",
      tag: "accounts",
      summary: "Get a customer (admin, or a key of that customer)",
      params: z.object({ customer_id: idParam }),
      responses: { 200: { description: "the customer", schema: customerSchema }, ...errors },
      handler: async ({ params, caller: c }) => ({
        status: 200,
        body: customerJson(await ctx.accounts.getCustomer(caller(c), params.customer_id)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/customers/:customer_id",
      tag: "accounts",
      summary: "Change a customer's name or tier (admin)",
      audit: "customer.update",
      params: z.object({ customer_id: idParam }),
      body: updateCustomerBody.meta({ id: "UpdateCustomerRequest" }),
      responses: { 200: { description: "updated", schema: customerSchema }, ...errors },
      handler: async ({ params, body, caller: c }) => ({
        status: 200,
        body: customerJson(await ctx.accounts.updateCustomer(caller(c), params.customer_id, body)),
      }),
    }),
    route({
      method: "POST",
      path: "/api/v1/keys",
      tag: "accounts",
      summary: "Create an API key; the plaintext is returned once",
      audit: "key.create",
      body: createKeyBody.meta({ id: "CreateKeyRequest" }),
      responses: { 201: { description: "created", schema: createdKeySchema }, ...errors },
      handler: async ({ body, caller: c }) => {
        const { record, plaintext } = await ctx.accounts.createKey(caller(c), {
          customerId: body.customer_id,
          name: body.name,
          role: body.role,
          classificationFloor: body.classification_floor ?? caller(c).key.classificationFloor,
        });
        return { status: 201, body: { ...keyJson(record), key: plaintext } };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/keys",
      tag: "accounts",
      summary: "List API keys (a member key sees its own customer's keys)",
      query: keyListQuery,
      responses: { 200: { description: "keys", schema: listOf(keySchema) }, ...errors },
      handler: async ({ query, caller: c }) => {
        const page = { limit: query.limit + 1, offset: query.offset };
        const rows = await ctx.accounts.listKeys(caller(c), page, query.customer_id);
        return { status: 200, body: listBody(rows.map(keyJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/keys/:key_id",
      tag: "accounts",
      summary: "Get an API key's metadata (never the key)",
      params: z.object({ key_id: idParam }),
      responses: { 200: { description: "the key", schema: keySchema }, ...errors },
      handler: async ({ params, caller: c }) => ({
        status: 200,
        body: keyJson(await ctx.accounts.getKey(caller(c), params.key_id)),
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/keys/:key_id",
      tag: "accounts",
      summary: "Revoke an API key (takes effect at once on every replica)",
      audit: "key.revoke",
      params: z.object({ key_id: idParam }),
      responses: { 200: { description: "the revoked key", schema: keySchema }, ...errors },
      handler: async ({ params, caller: c }) => ({
        status: 200,
        body: keyJson(await ctx.accounts.revokeKey(caller(c), params.key_id)),
      }),
    }),
  ];
}
