import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import {
  promptFeedbackRequestSchema,
  promptFeedbackResponseSchema,
} from "../../../prompts/prompt-feedback-schemas.js";
import {
  abResultsSchema,
  abTestCreateSchema,
  promptResponseSchema,
} from "../../../prompts/prompt-schemas.js";
import type { PromptAbTest } from "../../../prompts/prompt-types.js";
import { abTestJson, promptJson } from "../../../prompts/prompt-wire.js";
import { armStats, errorRateTest } from "../../../routing/routes/ab-statistics.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { notArchived, promptConflict, promptErrors, slugParams } from "./prompt-route-common.js";

const AB_MAX_CALLS = 100_000;

/** A/B tests between published versions of a prompt, their results, and users' feedback. */
export function promptAbRoutes(ctx: AppContext): AnyRouteSpec[] {
  const service = ctx.prompts;
  const repo = service.repo;
  const customerOf = (c: Caller | undefined) => (c as Caller).customer.id;

  return [
    route({
      method: "POST",
      path: "/api/v1/prompts/:slug/ab-test",
      tag: "prompts",
      summary: "Start an A/B test between published versions (replaces the current test)",
      audit: "prompt.ab_test",
      params: slugParams,
      body: abTestCreateSchema,
      responses: {
        201: { description: "PromptResponse with the new ab_test", schema: promptResponseSchema },
        ...promptErrors,
        ...promptConflict,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        notArchived(await service.prompt(customerId, params.slug));
        for (const [i, arm] of body.arms.entries()) {
          const v = await repo.version(customerId, params.slug, arm.version);
          if (!v || v.status !== "published") {
            const msg = `version ${arm.version} is not a published version of '${params.slug}'`;
            throw new GatewayError("validation_failed", msg, {
              detail: [{ loc: ["body", "arms", i, "version"], msg, type: "prompt_version" }],
            });
          }
        }
        const now = new Date(ctx.clock.now()).toISOString();
        const test: PromptAbTest = {
          id: newId("abt"),
          arms: body.arms,
          sticky: body.sticky,
          enabled: body.enabled,
          startedAt: now,
          endedAt: body.enabled ? null : now,
        };
        await repo.setAbTest(customerId, params.slug, test);
        return { status: 201, body: promptJson(await service.prompt(customerId, params.slug)) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/prompts/:slug/ab-results",
      tag: "prompts",
      summary: "Per-arm results of the prompt's A/B test and a z-test on error rates",
      params: slugParams,
      responses: {
        200: { description: "PromptAbResults", schema: abResultsSchema },
        ...promptErrors,
      },
      handler: async ({ params, caller }) => {
        const customerId = customerOf(caller);
        const prompt = await service.prompt(customerId, params.slug);
        const test = prompt.abTest;
        const observations = test
          ? await repo.abObservations(customerId, params.slug, test.id, AB_MAX_CALLS)
          : [];
        const labels = (test?.arms ?? []).map((a) => `v${a.version}`);
        const feedback = test ? await service.feedback.byArm(customerId, params.slug, test.id) : [];
        const arms = armStats(labels, observations).map((a) => {
          const f = feedback.find((x) => x.arm === a.model);
          return {
            ...a,
            version: Number(a.model.slice(1)) || 0,
            feedback: { count: f?.count ?? 0, mean_score: f ? f.meanScore : null },
          };
        });
        const [a, b] = arms;
        return {
          status: 200,
          body: {
            object: "prompt.ab_results",
            slug: params.slug,
            ab_test: test ? abTestJson(test) : null,
            calls: observations.length,
            truncated: observations.length >= AB_MAX_CALLS,
            error_definition: "outcome upstream_error or stream_failed, or HTTP status >= 500",
            arms,
            analysis: a && b ? errorRateTest(a, b) : null,
          },
        };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/prompts/:slug/feedback",
      tag: "prompts",
      summary:
        "Record a user's score (0 to 1) of a call that used the prompt; the last score of a call counts",
      audit: "prompt.feedback",
      params: slugParams,
      body: promptFeedbackRequestSchema,
      responses: {
        200: { description: "PromptFeedbackResponse", schema: promptFeedbackResponseSchema },
        ...promptErrors,
      },
      handler: async ({ params, body, caller }) => {
        const customerId = customerOf(caller);
        await service.prompt(customerId, params.slug);
        // The call's audit record says which version and arm served it (never the caller).
        await ctx.audit.caughtUp();
        const use = await service.feedback.callPromptUse(customerId, body.request_id);
        if (!use) {
          throw new GatewayError(
            "resource_not_found",
            `no inference call with request_id '${body.request_id}' (of this customer)`,
          );
        }
        if (use.slug !== params.slug) {
          const msg = `call '${body.request_id}' did not use prompt '${params.slug}'`;
          throw new GatewayError("validation_failed", msg, {
            detail: [{ loc: ["body", "request_id"], msg, type: "prompt_feedback" }],
          });
        }
        const f = await service.feedback.put(customerId, body.request_id, use, body.score);
        return {
          status: 200,
          body: {
            object: "prompt.feedback",
            request_id: f.requestId,
            slug: f.slug,
            version: f.version,
            arm: f.arm,
            ab_test_id: f.abTestId,
            score: f.score,
            created_at: f.createdAt.toISOString(),
            updated_at: f.updatedAt.toISOString(),
          },
        };
      },
    }),
  ];
}
