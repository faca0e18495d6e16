import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import {
  promptCreateSchema,
  promptListSchema,
  promptResponseSchema,
  promptSlug,
  promptUpdateSchema,
  renderRequestSchema,
  renderResponseSchema,
  versionCreateSchema,
  versionListSchema,
  versionResponseSchema,
  versionUpdateSchema,
} from "../../../prompts/prompt-schemas.js";
import { promptJson, versionJson } from "../../../prompts/prompt-wire.js";
import { assertDeclared, renderMessages } from "../../../prompts/render-template.js";
import { listBody, pageQuery } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { promptAbRoutes } from "./prompt-ab.js";
import {
  notArchived,
  promptConflict as conflict,
  promptErrors as errors,
  slugParams,
} from "./prompt-route-common.js";

const versionParams = z.strictObject({
  slug: promptSlug,
  ver: z.coerce.number().int().min(1).max(1_000_000),
});
const listQuery = pageQuery.extend({
  include_archived: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});

/** Prompt templates (spec 4.9): per customer, versioned (drafts, then published), with A/B tests. */
export function promptRoutes(ctx: AppContext): AnyRouteSpec[] {
  const service = ctx.prompts;
  const repo = service.repo;
  const customerOf = (c: Caller | undefined) => (c as Caller).customer.id;

  return [
    route({
      method: "POST",
      path: "/api/v1/prompts",
      tag: "prompts",
      summary: "Create a prompt template (PromptCreate); versions are added separately",
      audit: "prompt.create",
      body: promptCreateSchema,
      responses: {
        201: { description: "PromptResponse", schema: promptResponseSchema },
        ...errors,
        ...conflict,
      },
      handler: async ({ body, caller }) => {
        const created = await repo.create({
          customerId: customerOf(caller),
          slug: body.slug,
          name: body.name ?? body.slug,
          description: body.description ?? "",
          tags: body.tags ?? [],
        });
        if (!created) {
          throw new GatewayError("resource_conflict", `a prompt with slug '${body.slug}' exists`);
        }
        return { status: 201, body: promptJson(created) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/prompts",
      tag: "prompts",
      summary: "The customer's prompts by slug (archived ones with include_archived=true)",
      query: listQuery,
      responses: {
        200: { description: "PromptListResponse", schema: promptListSchema },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const rows = await repo.list(customerOf(caller), {
          limit: query.limit,
          offset: query.offset,
          includeArchived: query.include_archived,
        });
        return { status: 200, body: listBody(rows.map(promptJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/prompts/:slug",
      tag: "prompts",
      summary: "One prompt (archived ones too)",
      params: slugParams,
      responses: {
        200: { description: "PromptResponse", schema: promptResponseSchema },
        ...errors,
      },
      handler: async ({ params, caller }) => ({
        status: 200,
        body: promptJson(await service.prompt(customerOf(caller), params.slug)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/prompts/:slug",
      tag: "prompts",
      summary: "Change a prompt's metadata (PromptUpdate)",
      audit: "prompt.update",
      params: slugParams,
      body: promptUpdateSchema,
      responses: {
        200: { description: "PromptResponse", schema: promptResponseSchema },
        ...errors,
        ...conflict,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        notArchived(await service.prompt(customerId, params.slug));
        await repo.update(customerId, params.slug, body);
        return { status: 200, body: promptJson(await service.prompt(customerId, params.slug)) };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/prompts/:slug",
      tag: "prompts",
      summary: "Archive a prompt (soft delete: still readable, not usable for new calls)",
      audit: "prompt.archive",
      params: slugParams,
      responses: {
        200: { description: "PromptResponse", schema: promptResponseSchema },
        ...errors,
      },
      handler: async ({ params, caller }) => {
        const customerId = customerOf(caller);
        await service.prompt(customerId, params.slug);
        await repo.archive(customerId, params.slug);
        return { status: 200, body: promptJson(await service.prompt(customerId, params.slug)) };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/prompts/:slug/versions",
      tag: "prompts",
      summary: "Add a version (PromptVersionCreate); it starts as a draft",
      audit: "prompt.version.create",
      params: slugParams,
      body: versionCreateSchema,
      responses: {
        201: { description: "PromptVersionResponse", schema: versionResponseSchema },
        ...errors,
        ...conflict,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        notArchived(await service.prompt(customerId, params.slug));
        assertDeclared(body.messages, body.variables);
        const v = await repo.addVersion(customerId, params.slug, {
          messages: body.messages,
          variables: [...new Set(body.variables)],
          model: body.model ?? null,
          params: body.params,
          note: body.note ?? "",
        });
        return { status: 201, body: versionJson(v) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/prompts/:slug/versions",
      tag: "prompts",
      summary: "A prompt's versions, newest first",
      params: slugParams,
      query: pageQuery,
      responses: {
        200: { description: "PromptVersionListResponse", schema: versionListSchema },
        ...errors,
      },
      handler: async ({ params, query, caller }) => {
        const customerId = customerOf(caller);
        await service.prompt(customerId, params.slug);
        const rows = await repo.versions(customerId, params.slug, query.limit, query.offset);
        return { status: 200, body: listBody(rows.map(versionJson), query.limit) };
      },
    }),
    route({
      method: "PATCH",
      path: "/api/v1/prompts/:slug/versions/:ver",
      tag: "prompts",
      summary: "Edit a draft version (PromptVersionUpdate); published versions are immutable",
      audit: "prompt.version.update",
      params: versionParams,
      body: versionUpdateSchema,
      responses: {
        200: { description: "PromptVersionResponse", schema: versionResponseSchema },
        ...errors,
        ...conflict,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        notArchived(await service.prompt(customerId, params.slug));
        const current = await service.version(customerId, params.slug, params.ver);
        if (current.status !== "draft") throw immutable(params.ver);
        const next = {
          messages: body.messages ?? current.messages,
          variables: [...new Set(body.variables ?? current.variables)],
          model: body.model === undefined ? current.model : body.model,
          params: body.params ?? current.params,
          note: body.note ?? current.note,
        };
        assertDeclared(next.messages, next.variables);
        const updated = await repo.updateDraft(customerId, params.slug, params.ver, next);
        if (!updated) throw immutable(params.ver);
        return { status: 200, body: versionJson(updated) };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/prompts/:slug/versions/:ver/publish",
      tag: "prompts",
      summary: "Publish a draft version; calls without a version use the latest published one",
      audit: "prompt.version.publish",
      params: versionParams,
      responses: {
        200: { description: "PromptVersionResponse", schema: versionResponseSchema },
        ...errors,
        ...conflict,
      },
      handler: async ({ params, caller }) => {
        const customerId = customerOf(caller);
        notArchived(await service.prompt(customerId, params.slug));
        await service.version(customerId, params.slug, params.ver);
        const published = await repo.publish(customerId, params.slug, params.ver);
        if (!published) {
          throw new GatewayError(
            "invalid_state_transition",
            `version ${params.ver} is already published`,
          );
        }
        return { status: 200, body: versionJson(published) };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/prompts/:slug/render",
      tag: "prompts",
      summary: "Render a version (default: latest published) with variables; no code runs",
      params: slugParams,
      body: renderRequestSchema,
      responses: {
        200: { description: "PromptRenderResponse", schema: renderResponseSchema },
        ...errors,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        const prompt = await service.prompt(customerId, params.slug);
        const ver = body.version ?? prompt.publishedVersion;
        if (ver === null) {
          throw new GatewayError(
            "validation_failed",
            `prompt '${params.slug}' has no published version; name a version to render a draft`,
          );
        }
        const v = await service.version(customerId, params.slug, ver);
        return {
          status: 200,
          body: {
            object: "prompt.render",
            slug: v.slug,
            version: v.version,
            messages: renderMessages(v.messages, v.variables, body.variables),
            model: v.model,
            params: v.params,
          },
        };
      },
    }),
    ...promptAbRoutes(ctx),
  ];
}

function immutable(ver: number): GatewayError {
  return new GatewayError(
    "invalid_state_transition",
    `version ${ver} is published and immutable; create a new version instead`,
  );
}
