import { GatewayError, toGatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import type { Clock } from "../core/clock.js";
import { pausesBatchLine } from "../core/inference-call.js";
import type { GuardrailPolicy } from "../guardrails/policy/policy-schema.js";
import { PollingWorkLoop, renewLease } from "../core/polling-work-loop.js";
import type { Logger } from "../observability/logger.js";
import type { RagChunkRepository } from "../store/rag-chunk-repository.js";
import type { RagCollectionRepository } from "../store/rag-collection-repository.js";
import type { RagDocumentRepository } from "../store/rag-document-repository.js";
import { decodeExtracted, ingestDocument } from "./ingest-document.js";
import type { EmbedChunks } from "./rag-embedder.js";
import type { RagDocument } from "./rag-types.js";

export interface RagIngestWorkerDeps {
  documents: RagDocumentRepository;
  collections: RagCollectionRepository;
  chunks: RagChunkRepository;
  /** The uploading key with its customer; undefined when the key was revoked or deleted. */
  loadCaller(customerId: string, keyId: string): Promise<Caller | undefined>;
  policyFor(customerId: string, keyId: string): Promise<GuardrailPolicy>;
  embed: EmbedChunks;
  clock: Clock;
  logger: Logger;
  owner: string;
  pollMs: number;
  leaseMs: number;
}

/** How long the background worker waits out rate limits within one attempt. */
export const LIMIT_WAIT_MS = 10 * 60_000;

/** Attempts before a transient failure (limits, upstream) fails the document for good. */
export const MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 5_000;

/**
 * Ingests queued documents, one at a time per replica, under a lease (a dead worker's document is
 * taken over when the lease lapses). Small uploads are processed at once by the upload request
 * (`process(id)`); large ones wait for the loop. A refusal (PII policy) or unreadable input fails
 * the document; a transient failure (rate limit, budget, upstream) puts it back in the queue with
 * backoff, MAX_ATTEMPTS times.
 */
export class RagIngestWorker {
  private readonly loop: PollingWorkLoop;

  constructor(private readonly deps: RagIngestWorkerDeps) {
    this.loop = new PollingWorkLoop(
      async () => (await this.process()) !== undefined,
      deps.pollMs,
      (err) => deps.logger.error({ err: String(err) }, "rag ingestion round failed"),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks for work now instead of at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** A lease for a document this worker takes at upload (see RagDocumentRepository.upload). */
  lease(): { owner: string; leaseUntil: Date } {
    return {
      owner: this.deps.owner,
      leaseUntil: new Date(this.deps.clock.now() + this.deps.leaseMs),
    };
  }

  /**
   * Claims and ingests one document (the oldest queued); returns it as it is afterwards, or
   * undefined when there was nothing to claim.
   */
  async process(): Promise<RagDocument | undefined> {
    const { documents, clock, owner, leaseMs } = this.deps;
    const now = clock.now();
    const doc = await documents.claim(owner, new Date(now), new Date(now + leaseMs));
    if (!doc) return undefined;
    return this.processClaimed(doc, false);
  }

  /**
   * Ingests a document this worker holds the lease on; returns it as it is afterwards. `inline`
   * (an upload request waits): a rate limit is not waited out, the document is queued again.
   */
  async processClaimed(doc: RagDocument, inline: boolean): Promise<RagDocument | undefined> {
    const { documents, clock, owner, leaseMs } = this.deps;
    const lease = renewLease(leaseMs, () =>
      documents.renew(doc.id, owner, new Date(clock.now() + leaseMs)),
    );
    try {
      await this.ingest(doc, inline ? 0 : LIMIT_WAIT_MS);
    } catch (err) {
      await this.failOrRetry(doc, err);
    } finally {
      lease.stop();
    }
    return documents.get(doc.customerId, doc.id);
  }

  private async ingest(doc: RagDocument, limitWaitMs: number): Promise<void> {
    const { documents, collections, chunks, clock } = this.deps;
    const [collection, caller, source] = await Promise.all([
      collections.get(doc.customerId, doc.collectionId),
      this.deps.loadCaller(doc.customerId, doc.keyId),
      documents.source(doc.id),
    ]);
    if (!collection) return; // deleted meanwhile: the document went with it
    if (!caller) {
      throw new GatewayError(
        "invalid_api_key",
        "the key that uploaded the document was revoked before it was ingested; upload it again",
      );
    }
    if (!source) throw new GatewayError("validation_failed", "the document's text is gone");
    const policy = await this.deps.policyFor(doc.customerId, doc.keyId);
    const result = await ingestDocument(
      { document: doc, collection, caller, extracted: decodeExtracted(source), policy },
      this.deps.embed,
      { limitWaitMs },
    );
    const vector = result.chunks.find((c) => c.embedding !== null)?.embedding;
    if (vector) {
      await chunks.prepareDimensions(vector);
      await collections.setEmbeddingDimensions(doc.customerId, collection.id, vector.length);
    }
    const done = await documents.complete(doc.id, this.deps.owner, result, new Date(clock.now()));
    if (!done) this.deps.logger.warn({ document_id: doc.id }, "rag document lease lost");
  }

  private async failOrRetry(doc: RagDocument, err: unknown): Promise<void> {
    const { documents, clock, owner, logger } = this.deps;
    const error = toGatewayError(err);
    const transient =
      pausesBatchLine(error) || error.code === "upstream_unavailable" || error.status >= 500;
    if (error.code === "internal_error") {
      logger.error({ document_id: doc.id, err: String(err) }, "rag ingestion failed");
    }
    const reason = {
      code: error.code,
      message: error.code === "internal_error" ? "internal error during ingestion" : error.message,
    };
    const now = clock.now();
    if (transient && doc.attempts < MAX_ATTEMPTS) {
      const retryAfter = Number(error.headers["retry-after"] ?? "0") * 1000;
      const backoff = Math.max(retryAfter, RETRY_BASE_MS * 2 ** (doc.attempts - 1));
      await documents.retryLater(doc.id, owner, reason, new Date(now + backoff));
      return;
    }
    await documents.fail(doc.id, owner, reason, new Date(now));
  }
}
