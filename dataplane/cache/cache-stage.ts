import { costOf } from "../audit/call-record.js";
import type { Clock } from "../core/clock.js";
import type { InferenceCall } from "../core/inference-call.js";
import type { PipelineStage, StreamTextFilter } from "../core/pipeline.js";
import type { Logger } from "../observability/logger.js";
import type { NearestEntry } from "../store/cache-entry-rows.js";
import type { CacheRepository } from "../store/cache-repository.js";
import { promptText } from "../upstream/usage.js";
import type { CacheConfig, CacheConfigService } from "./cache-config.js";
import { cacheKeyOf, type CacheKey } from "./cache-key.js";
import { completionFromStream } from "./cached-response.js";
import type { Embed, Embedding } from "./embedder.js";
import { CallState } from "../core/call-state.js";

/** Larger answers are not stored. */
const MAX_STORED_CHARS = 1024 * 1024;

export interface CacheStageDeps {
  repo: CacheRepository;
  configs: CacheConfigService;
  /** A digest of the guardrail policy and rules this call runs under. */
  policyVersion: (call: InferenceCall) => Promise<string>;
  embed: Embed;
  clock: Clock;
  logger: Logger;
}

/** A miss that may be stored once the call has completed. */
interface Pending {
  config: CacheConfig;
  key: CacheKey;
  vector: number[] | undefined;
  /** The embedding call made for the lookup. */
  embeddingRequestId?: string;
  response?: Record<string, unknown>;
  streamed?: { text: string; tooLarge: boolean };
  /** The stream had parts other than choice 0's content (tool calls, refusals, more choices). */
  streamedOther?: boolean;
}

const PROTECTED = new Set(["confidential", "restricted"]);

/**
 * The response cache in the pipeline, after request guardrails and routing. A lookup finds an
 * identical request (exact) or, in semantic mode, the nearest stored prompt of the same model,
 * parameters and policy above the similarity threshold; a hit sets `call.cache` and the adapter
 * serves the stored answer (through output guardrails) instead of forwarding. A completed miss is
 * stored after the call (off the response path). Store failures never fail a call.
 */
export function cacheStage(deps: CacheStageDeps): PipelineStage {
  const pending = new CallState<Pending>("pending");

  /** Exact first; in semantic mode the prompt is embedded (also kept for storing a miss). */
  async function lookup(
    call: InferenceCall,
    config: CacheConfig,
    key: CacheKey,
    p: Pending,
    read: boolean,
  ) {
    const customerId = call.caller.customer.id;
    const now = new Date(deps.clock.now());
    const exact = read ? await deps.repo.exact(customerId, key.keyHash, now) : undefined;
    if (exact) return { entry: exact as NearestEntry, kind: "exact" as const };
    const embedded = await embedding(call, config);
    p.vector = embedded?.vector;
    p.embeddingRequestId = embedded?.requestId;
    if (!read || !p.vector || !config.embedding_model) return undefined;
    const near = await deps.repo.nearest(
      customerId,
      key.scopeHash,
      config.embedding_model,
      p.vector,
      now,
    );
    return near && near.similarity >= config.similarity_threshold
      ? { entry: near, kind: "semantic" as const }
      : undefined;
  }

  async function embedding(
    call: InferenceCall,
    config: CacheConfig,
  ): Promise<Embedding | undefined> {
    if (config.mode !== "semantic" || !config.embedding_model) return undefined;
    try {
      return await deps.embed(call, config.embedding_model, promptText(call.body));
    } catch (err) {
      // A refused or failed embedding call (limits, budget, backend) only makes it exact-only.
      deps.logger.warn({ request_id: call.requestId, err: String(err) }, "cache embedding failed");
      return undefined;
    }
  }

  return {
    name: "cache",
    async beforeForward(call) {
      if (!call.cacheable || call.endpoint !== "chat.completions" || !call.route) return;
      const control = (call.requestHeaders?.["cache-control"] ?? "").toLowerCase();
      try {
        const config = await deps.configs.get(call.caller.customer.id);
        if (!config.enabled) return;
        const bypass =
          control.includes("no-store") ||
          (PROTECTED.has(call.classification) && !config.cache_confidential);
        if (bypass) {
          call.cache = { result: "bypass" };
          call.responseHeaders["x-evident-cache"] = "bypass";
          return;
        }
        const key = cacheKeyOf(call, await deps.policyVersion(call));
        const p: Pending = { config, key, vector: undefined };
        const found = await lookup(call, config, key, p, !control.includes("no-cache"));
        if (found) {
          const { entry } = found;
          call.cache = {
            result: "hit",
            kind: found.kind,
            keyHash: entry.keyHash,
            similarity: Math.round(entry.similarity * 1e6) / 1e6,
            savedTokens: entry.promptTokens + entry.completionTokens,
            savedCostUsd: entry.costUsd,
            response: entry.response,
            embeddingRequestId: p.embeddingRequestId,
          };
          call.responseHeaders["x-evident-cache"] = "hit";
          const now = new Date(deps.clock.now());
          void deps.repo
            .recordHit(call.caller.customer.id, entry.keyHash, now)
            .catch(() => undefined);
          return;
        }
        call.cache = {
          result: "miss",
          keyHash: key.keyHash,
          embeddingRequestId: p.embeddingRequestId,
        };
        call.responseHeaders["x-evident-cache"] = "miss";
        pending.set(call, p);
      } catch (err) {
        // The cache fails open: the call goes upstream as if there were no cache.
        deps.logger.warn({ request_id: call.requestId, err: String(err) }, "cache lookup failed");
      }
    },
    async transformResponse(call, body) {
      const p = pending.get(call);
      if (p) p.response = body;
      return body;
    },
    openStreamFilter(call, part): StreamTextFilter | undefined {
      const p = pending.get(call);
      if (!p) return undefined;
      if (part.choice !== 0 || part.field !== "content") {
        // Only a single choice's text is stored from a stream (see docs/cache.md).
        p.streamedOther = true;
        return undefined;
      }
      const streamed = { text: "", tooLarge: false };
      p.streamed = streamed;
      return {
        push(text) {
          if (streamed.text.length + text.length > MAX_STORED_CHARS) streamed.tooLarge = true;
          else streamed.text += text;
          return { emit: text };
        },
        end: () => ({ emit: "" }),
      };
    },
    async afterCall(call) {
      const p = pending.get(call);
      pending.delete(call);
      if (!p || call.outcome !== "completed" || call.status !== 200) return;
      const n = call.body.n;
      const response =
        p.response ??
        (p.streamed &&
        !p.streamed.tooLarge &&
        !p.streamedOther &&
        p.streamed.text.length > 0 &&
        (n == null || n === 1)
          ? completionFromStream(call, p.streamed.text)
          : undefined);
      if (!response || JSON.stringify(response).length > MAX_STORED_CHARS) return;
      const usage = call.usage;
      const put = deps.repo.put({
        customerId: call.caller.customer.id,
        keyHash: p.key.keyHash,
        scopeHash: p.key.scopeHash,
        model: call.route?.model.name ?? call.requestedModel,
        modelVersion: call.route?.model.model?.version ?? null,
        response,
        promptTokens: usage?.promptTokens ?? 0,
        completionTokens: usage?.completionTokens ?? 0,
        costUsd: costOf(call) ?? 0,
        embeddingModel: p.vector ? p.config.embedding_model : null,
        embedding: p.vector ?? null,
        expiresAt: new Date(deps.clock.now() + p.config.ttl_seconds * 1000),
      });
      // Off the response path; a failed store only costs a later miss.
      void put.catch((err: unknown) =>
        deps.logger.warn({ request_id: call.requestId, err: String(err) }, "cache store failed"),
      );
    },
  };
}

/** Deletes expired entries every `intervalMs`; returns a stop function. */
export function startExpirySweep(
  repo: CacheRepository,
  clock: Clock,
  logger: Logger,
  intervalMs: number,
): () => void {
  const timer = setInterval(() => {
    repo
      .deleteExpired(new Date(clock.now()), 10_000)
      .catch((err: unknown) => logger.warn({ err: String(err) }, "cache expiry sweep failed"));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
