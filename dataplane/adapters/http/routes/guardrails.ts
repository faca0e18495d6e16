import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import { actsForAnyCustomer, mayAlterKey } from "../../../core/permissions.js";
import { applyTemplate } from "../../../guardrails/policy/apply-template.js";
import { mergePolicy } from "../../../guardrails/policy/merge-policy.js";
import { policyPatchSchema } from "../../../guardrails/policy/policy-schema.js";
import {
  applyTemplateRequestSchema,
  listTemplates,
} from "../../../guardrails/policy/policy-templates.js";
import { compileRule } from "../../../guardrails/rules/compile-rule.js";
import {
  mergeRuleUpdate,
  ruleDefinitionSchema,
  ruleUpdateSchema,
} from "../../../guardrails/rules/rule-definition.js";
import { testRule, testRuleRequestSchema } from "../../../guardrails/rules/test-rule.js";
import type { StoredRule } from "../../../store/guardrail-repository.js";
import { errorSchema, idParam } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { actingCustomer } from "./acting-customer.js";
import { parseOrThrow, validationError } from "../validation.js";
import {
  guardrailPolicy,
  policyTemplates,
  ruleListResponse,
  ruleResponse,
  testRuleResponse,
} from "../response-schemas.js";

function ruleJson(r: StoredRule) {
  return {
    ...r.definition,
    id: r.id,
    rule_id: r.id,
    object: "guardrail_rule",
    customer_id: r.customerId,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

const customerQuery = z.object({ customer_id: idParam.optional() });
const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such rule (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function guardrailRoutes(ctx: AppContext): AnyRouteSpec[] {
  const who = (c: Caller | undefined) => c as Caller;
  const repo = ctx.repos.guardrails;
  const notFound = (id: string) => new GatewayError("resource_not_found", `rule ${id} not found`);
  const params = z.object({ rule_id: idParam });
  /** By id: an admin reaches any customer's rule; a member only its own customer's. */
  /** A key of the customer acted for; another customer's key is not found. */
  const keyOf = async (c: Caller, keyId: string, customerId: string) => {
    const key = await ctx.repos.apiKeys.get(keyId, customerId);
    if (!key) throw new GatewayError("resource_not_found", `key ${keyId} not found`);
    return key;
  };
  const byIdScope = (c: Caller) => (actsForAnyCustomer(c.key.role) ? null : c.customer.id);
  return [
    route({
      method: "POST",
      path: "/api/v1/guardrails/rules",
      tag: "guardrails",
      summary: "Create a custom rule (regex, keyword, pii, max_tokens) for the caller's customer",
      audit: "rule.create",
      query: customerQuery,
      body: ruleDefinitionSchema.meta({ id: "CreateRuleRequest" }),
      responses: { 201: { description: "RuleResponse", schema: ruleResponse }, ...errors },
      handler: async ({ query, body, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        compileRule(body);
        const stored = await repo.createRule(newId("rule"), customerId, body);
        await ctx.guardConfig.changed(customerId);
        return { status: 201, body: ruleJson(stored) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/guardrails/rules",
      tag: "guardrails",
      summary: "The caller's customer's rules",
      query: customerQuery.extend({ enabled_only: z.enum(["true", "false"]).default("false") }),
      responses: { 200: { description: "RuleListResponse", schema: ruleListResponse }, ...errors },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const rules = (await repo.rules(customerId)).filter(
          (r) => query.enabled_only === "false" || r.definition.enabled !== false,
        );
        return {
          status: 200,
          body: { object: "list", data: rules.map(ruleJson), total: rules.length, has_more: false },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/guardrails/rules/:rule_id",
      tag: "guardrails",
      summary: "One rule",
      params,
      responses: { 200: { description: "RuleResponse", schema: ruleResponse }, ...errors },
      handler: async ({ params: p, caller }) => {
        const rule = await repo.rule(p.rule_id, byIdScope(who(caller)));
        if (!rule) throw notFound(p.rule_id);
        return { status: 200, body: ruleJson(rule) };
      },
    }),
    route({
      method: "PATCH",
      path: "/api/v1/guardrails/rules/:rule_id",
      tag: "guardrails",
      summary: "Change a rule (null removes an optional field)",
      audit: "rule.update",
      params,
      body: ruleUpdateSchema.meta({ id: "UpdateRuleRequest" }),
      responses: { 200: { description: "RuleResponse", schema: ruleResponse }, ...errors },
      handler: async ({ params: p, body, caller }) => {
        const current = await repo.rule(p.rule_id, byIdScope(who(caller)));
        if (!current) throw notFound(p.rule_id);
        const customerId = current.customerId;
        const merged = mergeRuleUpdate(
          parseOrThrow(ruleDefinitionSchema, current.definition, "body"),
          body,
        );
        if (!merged.success) throw validationError(merged.error, "body");
        const updated = await repo.updateRule(p.rule_id, customerId, merged.data);
        await ctx.guardConfig.changed(customerId);
        return { status: 200, body: ruleJson(updated as StoredRule) };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/guardrails/rules/:rule_id",
      tag: "guardrails",
      summary: "Delete a rule",
      audit: "rule.delete",
      params,
      responses: { 204: { description: "deleted" }, ...errors },
      handler: async ({ params: p, caller }) => {
        const deleted = await repo.deleteRule(p.rule_id, byIdScope(who(caller)));
        if (!deleted) throw notFound(p.rule_id);
        await ctx.guardConfig.changed(deleted.customerId);
        return { status: 204 };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/guardrails/rules/test",
      tag: "guardrails",
      summary:
        "Run a rule on sample content without saving it: matches with spans, verdict, redacted text",
      body: testRuleRequestSchema.meta({ id: "TestRuleRequest" }),
      responses: { 200: { description: "TestRuleResponse", schema: testRuleResponse }, ...errors },
      handler: async ({ body }) => ({ status: 200, body: testRule(body.rule, body.content) }),
    }),
    route({
      method: "GET",
      path: "/api/v1/guardrails/policy",
      tag: "guardrails",
      summary: "The customer's guardrail policy (with ?key_id=, that key's override too)",
      query: customerQuery.extend({ key_id: idParam.optional() }),
      responses: { 200: { description: "policy", schema: guardrailPolicy }, ...errors },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const policy = await ctx.guardConfig.policy(customerId);
        if (query.key_id) await keyOf(who(caller), query.key_id, customerId);
        const override = query.key_id ? await repo.keyOverride(query.key_id, customerId) : null;
        return {
          status: 200,
          body: {
            object: "guardrail_policy",
            customer_id: customerId,
            policy,
            key_override: override ?? null,
          },
        };
      },
    }),
    route({
      method: "PATCH",
      path: "/api/v1/guardrails/policy",
      tag: "guardrails",
      summary:
        "Change the customer's policy (deep partial), or with ?key_id= set that key's override",
      audit: "policy.update",
      query: customerQuery.extend({ key_id: idParam.optional() }),
      body: policyPatchSchema.meta({ id: "UpdateGuardrailPolicyRequest" }),
      responses: { 200: { description: "policy", schema: guardrailPolicy }, ...errors },
      handler: async ({ query, body, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        if (query.key_id) {
          const key = await keyOf(who(caller), query.key_id, customerId);
          if (!mayAlterKey(who(caller), key)) {
            throw new GatewayError(
              "insufficient_role",
              "only an admin key may change an admin's, compliance or operator key's override",
            );
          }
          if (!(await repo.saveKeyOverride(query.key_id, customerId, body))) {
            throw new GatewayError("resource_not_found", `key ${query.key_id} not found`);
          }
          await ctx.guardConfig.changed(query.key_id);
        } else {
          await repo.savePolicy(
            customerId,
            mergePolicy(await ctx.guardConfig.policy(customerId), body),
          );
          await ctx.guardConfig.changed(customerId);
        }
        const policy = await ctx.guardConfig.policy(customerId);
        return {
          status: 200,
          body: { object: "guardrail_policy", customer_id: customerId, policy },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/gateway/policies/templates",
      tag: "guardrails",
      summary: "Compliance policy templates (HIPAA, PCI DSS, GDPR, SOC 2)",
      responses: { 200: { description: "templates", schema: policyTemplates } },
      handler: async () => ({
        status: 200,
        body: { object: "list", data: listTemplates(), has_more: false },
      }),
    }),
    route({
      method: "POST",
      path: "/api/v1/gateway/policies/apply",
      tag: "guardrails",
      summary: "Apply a template to the caller's customer's policy (templates only tighten)",
      audit: "policy.apply_template",
      query: customerQuery,
      body: applyTemplateRequestSchema.meta({ id: "ApplyPolicyTemplateRequest" }),
      responses: {
        200: { description: "the resulting policy", schema: guardrailPolicy },
        ...errors,
      },
      handler: async ({ query, body, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const policy = applyTemplate(await ctx.guardConfig.policy(customerId), body.template);
        await repo.savePolicy(customerId, policy);
        await ctx.guardConfig.changed(customerId);
        return {
          status: 200,
          body: {
            object: "guardrail_policy",
            customer_id: customerId,
            template: body.template,
            policy,
          },
        };
      },
    }),
  ];
}
