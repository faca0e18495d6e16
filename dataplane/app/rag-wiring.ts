import { randomUUID } from "node:crypto";
import { pipelineChunkEmbedder } from "../adapters/http/compat/rag-embedding-call.js";
import type { Config } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import type { GuardConfigService } from "../guardrails/enforcement/guard-config.js";
import type { Logger } from "../observability/logger.js";
import { ExtractionThread } from "../rag/extract-thread.js";
import { RagIngestWorker } from "../rag/rag-ingest-worker.js";
import { RagService } from "../rag/rag-service.js";
import type { ApiKeyRepository } from "../store/api-key-repository.js";
import type { CustomerRepository } from "../store/customer-repository.js";
import type { Database } from "../store/database.js";
import { RagChunkRepository } from "../store/rag-chunk-repository.js";
import { RagCollectionRepository } from "../store/rag-collection-repository.js";
import { RagDocumentRepository } from "../store/rag-document-repository.js";
import type { AppContext } from "./context.js";

/**
 * RAG's repositories, ingestion worker and service. Embeddings are calls through the app's own
 * pipeline, so `ctx` is read when the first document is ingested (after the app is built).
 */
export async function buildRag(
  deps: {
    db: Database;
    config: Config;
    clock: Clock;
    logger: Logger;
    apiKeys: ApiKeyRepository;
    customers: CustomerRepository;
    guardConfig: GuardConfigService;
  },
  ctx: () => AppContext,
): Promise<{ service: RagService; worker: RagIngestWorker; extraction: ExtractionThread }> {
  const { db, config, clock, logger } = deps;
  const collections = new RagCollectionRepository(db);
  const documents = new RagDocumentRepository(db);
  const chunks = new RagChunkRepository(db);
  const vectorSearch = await chunks.prepareVectors();
  logger.info({ vector_search: vectorSearch }, "rag ready");
  const worker = new RagIngestWorker({
    documents,
    collections,
    chunks,
    async loadCaller(customerId, keyId) {
      const key = await deps.apiKeys.get(keyId, customerId);
      if (!key || key.revokedAt !== null) return undefined;
      const customer = await deps.customers.get(customerId);
      return customer ? { key, customer } : undefined;
    },
    policyFor: async (customerId, keyId) =>
      (await deps.guardConfig.forCall(customerId, keyId)).policy,
    embed: pipelineChunkEmbedder(ctx),
    clock,
    logger,
    owner: `rag_${randomUUID()}`,
    pollMs: config.RAG_POLL_MS,
    leaseMs: config.RAG_LEASE_MS,
  });
  const extraction = new ExtractionThread();
  const service = new RagService(
    collections,
    documents,
    chunks,
    worker,
    extraction,
    {
      storageMb: config.RAG_STORAGE_MB,
      maxDocumentBytes: config.RAG_MAX_DOCUMENT_BYTES,
      syncIngestBytes: config.RAG_SYNC_INGEST_BYTES,
    },
    clock,
  );
  return { service, worker, extraction };
}
