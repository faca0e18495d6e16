import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import { errorSchema } from "../common-schemas.js";
import {
  batchJson,
  batchList,
  batchListQuery,
  batchObject,
  batchParams,
  createBatchRequest,
  cursorList,
} from "../compat/batch-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such batch or input file (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

const HOUR_MS = 3_600_000;

/** The OpenAI Batch API. Always scoped to the caller's customer; lines run as the creating key. */
export function batchRoutes(ctx: AppContext, worker: { nudge(): void }): AnyRouteSpec[] {
  const batches = ctx.repos.batches;
  const caller = (c: Caller | undefined) => c as Caller;
  const find = async (c: Caller | undefined, id: string) => {
    const batch = await batches.get(id, caller(c).customer.id);
    if (!batch) throw new GatewayError("resource_not_found", `batch ${id} not found`);
    return batch;
  };
  return [
    route({
      method: "POST",
      path: "/v1/batches",
      tag: "batches",
      summary: "Create a batch from an uploaded JSONL file; it is validated, then run",
      body: createBatchRequest,
      responses: { 200: { description: "the batch (validating)", schema: batchObject }, ...errors },
      handler: async ({ body, caller: c }) => {
        const who = caller(c);
        const file = await ctx.repos.files.get(body.input_file_id, who.customer.id);
        if (!file || file.purpose !== "batch") {
          throw new GatewayError(
            "resource_not_found",
            `input file ${body.input_file_id} not found (upload it with purpose=batch)`,
          );
        }
        const now = ctx.clock.now();
        const hours = Number.parseInt(body.completion_window, 10);
        const batch = await batches.create({
          id: newId("batch", 24),
          customerId: who.customer.id,
          keyId: who.key.id,
          endpoint: body.endpoint,
          inputFileId: file.id,
          completionWindow: body.completion_window,
          metadata: body.metadata ?? null,
          createdAt: new Date(now),
          expiresAt: new Date(now + hours * HOUR_MS),
        });
        worker.nudge();
        return { status: 200, body: batchJson(batch) };
      },
    }),
    route({
      method: "GET",
      path: "/v1/batches",
      tag: "batches",
      summary: "List this customer's batches, newest first (cursor paging with after/limit)",
      query: batchListQuery,
      responses: { 200: { description: "a page of batches", schema: batchList }, ...errors },
      handler: async ({ query, caller: c }) => {
        const rows = await batches.list(caller(c).customer.id, query.after, query.limit);
        return { status: 200, body: cursorList(rows.map(batchJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/v1/batches/:batch_id",
      tag: "batches",
      summary: "A batch's status, counts and files",
      params: batchParams,
      responses: { 200: { description: "the batch", schema: batchObject }, ...errors },
      handler: async ({ params, caller: c }) => ({
        status: 200,
        body: batchJson(await find(c, params.batch_id)),
      }),
    }),
    route({
      method: "POST",
      path: "/v1/batches/:batch_id/cancel",
      tag: "batches",
      summary:
        "Cancel a batch: no new lines start, lines in flight finish, what completed is written",
      params: batchParams,
      responses: {
        200: {
          description: "the batch (cancelling, or as it was if already ended)",
          schema: batchObject,
        },
        409: { description: "the batch has already ended", schema: errorSchema },
        ...errors,
      },
      handler: async ({ params, caller: c }) => {
        const who = caller(c);
        await find(c, params.batch_id);
        const batch = await batches.requestCancel(
          params.batch_id,
          who.customer.id,
          new Date(ctx.clock.now()),
        );
        if (!batch)
          throw new GatewayError("resource_not_found", `batch ${params.batch_id} not found`);
        if (!["cancelling", "cancelled"].includes(batch.status)) {
          throw new GatewayError(
            "invalid_state_transition",
            `batch ${batch.id} is ${batch.status} and can no longer be cancelled`,
          );
        }
        worker.nudge();
        return { status: 200, body: batchJson(batch) };
      },
    }),
  ];
}
