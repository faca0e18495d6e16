import { randomUUID } from "node:crypto";
import { batchLineRunner } from "../adapters/http/compat/batch-line-call.js";
import { chatCompletionRequest, embeddingRequest } from "../adapters/http/compat/compat-schemas.js";
import { readBatchInput } from "../batches/batch-input.js";
import { BatchRunner } from "../batches/batch-runner.js";
import type { BatchRecord } from "../batches/batch-types.js";
import { GatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import { resolveCallRoute } from "../routing/routes/resolve-call-route.js";
import type { AppContext } from "./context.js";

const BODY_SCHEMAS = {
  "/v1/chat/completions": chatCompletionRequest,
  "/v1/embeddings": embeddingRequest,
} as const;

/** The batch worker of this replica, wired to the app's repositories, routing and pipeline. */
export function buildBatchRunner(ctx: AppContext): BatchRunner {
  const { repos, config } = ctx;
  return new BatchRunner({
    batches: repos.batches,
    files: repos.files,
    async loadCaller(batch: BatchRecord): Promise<Caller | undefined> {
      const key = await repos.apiKeys.get(batch.keyId, batch.customerId);
      if (!key || key.revokedAt !== null) return undefined;
      const customer = await repos.customers.get(batch.customerId);
      return customer ? { key, customer } : undefined;
    },
    readInput: (batch, caller) =>
      readBatchInput(repos.files.content(batch.inputFileId), {
        endpoint: batch.endpoint,
        maxLines: config.BATCH_MAX_LINES,
        checkBody(body) {
          const parsed = BODY_SCHEMAS[batch.endpoint].safeParse(body);
          if (parsed.success) return undefined;
          const issue = parsed.error.issues[0];
          return issue ? `body.${issue.path.join(".")}: ${issue.message}` : "invalid body";
        },
        checkModel(model) {
          try {
            resolveCallRoute(ctx.routing.current, ctx.health, {
              customerId: caller.customer.id,
              tier: caller.customer.tier,
              requestedModel: model,
              requestHeaders: undefined,
            });
            return undefined;
          } catch (err) {
            if (err instanceof GatewayError) return { code: err.code, message: err.message };
            throw err;
          }
        },
      }),
    runLine: batchLineRunner(ctx),
    clock: ctx.clock,
    logger: ctx.logger,
    owner: `worker_${randomUUID()}`,
    pollMs: config.BATCH_POLL_MS,
    leaseMs: config.BATCH_LEASE_MS,
    concurrency: config.BATCH_CONCURRENCY,
  });
}
