import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import type { Caller, ClassificationLevel, Tier } from "../core/identity.js";
import { newId } from "../core/ids.js";
import type {
  CollectionPatch,
  NewCollection,
  RagCollectionRepository,
} from "../store/rag-collection-repository.js";
import type { RagChunkRepository } from "../store/rag-chunk-repository.js";
import type { RagDocumentRepository, RagUsage } from "../store/rag-document-repository.js";
import { documentFormat } from "./document-formats.js";
import type { ExtractionThread } from "./extract-thread.js";
import { encodeExtracted } from "./ingest-document.js";
import {
  assertCanReadCollection,
  canReadCollection,
  readableClassifications,
} from "./rag-access.js";
import type { RagIngestWorker } from "./rag-ingest-worker.js";
import type { RagChunk, RagCollection, RagDocument } from "./rag-types.js";

export interface RagLimits {
  /** Stored MiB of documents per customer, by tier. */
  storageMb: Record<Tier, number>;
  maxDocumentBytes: number;
  /** Uploads up to this size are ingested before the upload answers. */
  syncIngestBytes: number;
}

export interface DocumentUpload {
  bytes: Buffer;
  filename: string;
  /** The declared media type (multipart part or JSON content_type); may be generic. */
  contentType: string | undefined;
  metadata: Record<string, unknown>;
}

const MIB = 1024 * 1024;

/**
 * RAG collections and documents for one caller: always scoped to the caller's customer, and to
 * the collections its key's classification level may read (rag-access.ts).
 */
export class RagService {
  constructor(
    readonly collections: RagCollectionRepository,
    readonly documents: RagDocumentRepository,
    readonly chunks: RagChunkRepository,
    private readonly worker: RagIngestWorker,
    private readonly extraction: ExtractionThread,
    private readonly limits: RagLimits,
    private readonly clock: Clock,
  ) {}

  capBytes(tier: Tier): number {
    return this.limits.storageMb[tier] * MIB;
  }

  get maxDocumentBytes(): number {
    return this.limits.maxDocumentBytes;
  }

  /** A collection of the caller's customer that its key may read: else 404 / 403. */
  async collection(caller: Caller, id: string): Promise<RagCollection> {
    const found = await this.collections.get(caller.customer.id, id);
    if (!found) throw new GatewayError("resource_not_found", `collection ${id} not found`);
    assertCanReadCollection(caller.key.classificationFloor, found);
    return found;
  }

  async createCollection(
    caller: Caller,
    input: Omit<NewCollection, "id" | "customerId" | "classification"> & {
      classification: ClassificationLevel | undefined;
    },
  ): Promise<RagCollection> {
    const classification = input.classification ?? caller.key.classificationFloor;
    assertWritable(caller, classification);
    const created = await this.collections.create(
      { ...input, classification, id: newId("rcol"), customerId: caller.customer.id },
      new Date(this.clock.now()),
    );
    if (!created) {
      throw new GatewayError("resource_conflict", `a collection named '${input.name}' exists`);
    }
    return created;
  }

  async listCollections(caller: Caller, page: { limit: number; offset: number }) {
    return this.collections.list(caller.customer.id, {
      readable: readableClassifications(caller.key.classificationFloor),
      ...page,
    });
  }

  async updateCollection(
    caller: Caller,
    id: string,
    patch: CollectionPatch,
  ): Promise<RagCollection> {
    const current = await this.collection(caller, id);
    if (patch.classification) assertWritable(caller, patch.classification);
    const size = patch.chunkSizeTokens ?? current.chunkSizeTokens;
    const overlap = patch.chunkOverlapTokens ?? current.chunkOverlapTokens;
    if (overlap >= size) {
      throw new GatewayError(
        "validation_failed",
        "chunk_overlap_tokens must be below chunk_size_tokens",
        {
          detail: [
            {
              loc: ["body", "chunk_overlap_tokens"],
              msg: "must be below chunk_size_tokens",
              type: "value_error",
            },
          ],
        },
      );
    }
    if (patch.name && (await this.collections.nameTaken(caller.customer.id, patch.name, id))) {
      throw new GatewayError("resource_conflict", `a collection named '${patch.name}' exists`);
    }
    const updated = await this.collections.update(
      caller.customer.id,
      id,
      patch,
      new Date(this.clock.now()),
    );
    if (!updated) throw new GatewayError("resource_not_found", `collection ${id} not found`);
    return updated;
  }

  async deleteCollection(caller: Caller, id: string): Promise<void> {
    await this.collection(caller, id);
    if (!(await this.collections.delete(caller.customer.id, id))) {
      throw new GatewayError("resource_not_found", `collection ${id} not found`);
    }
  }

  /**
   * Stores an upload and ingests it (at once when small, else in the background). The same bytes
   * already in the collection answer with that document (`created: false`); a failed one is
   * ingested again. Over the tier's storage cap: 413 storage_cap_exceeded.
   */
  async upload(
    caller: Caller,
    collectionId: string,
    upload: DocumentUpload,
  ): Promise<{ document: RagDocument; created: boolean }> {
    const collection = await this.collection(caller, collectionId);
    if (upload.bytes.length === 0) {
      throw new GatewayError("validation_failed", "the document is empty", {
        detail: [{ loc: ["body", "file"], msg: "must not be empty", type: "too_small" }],
      });
    }
    if (upload.bytes.length > this.limits.maxDocumentBytes) {
      throw new GatewayError(
        "request_too_large",
        `the document is larger than the ${this.limits.maxDocumentBytes}-byte limit`,
      );
    }
    const format = documentFormat(upload.contentType, upload.filename);
    const contentHash = createHash("sha256").update(upload.bytes).digest("hex");
    const extracted = await this.extraction.extract(upload.bytes, format);
    const cap = this.capBytes(caller.customer.tier);
    const inline = upload.bytes.length <= this.limits.syncIngestBytes;
    const outcome = await this.documents.upload(
      {
        id: newId("rdoc"),
        customerId: caller.customer.id,
        collectionId: collection.id,
        keyId: caller.key.id,
        filename: upload.filename,
        contentType: format,
        contentHash,
        bytes: upload.bytes.length,
        metadata: upload.metadata,
      },
      encodeExtracted(extracted),
      cap,
      new Date(this.clock.now()),
      inline ? this.worker.lease() : undefined,
    );
    if (outcome.kind === "over_cap") {
      throw new GatewayError(
        "storage_cap_exceeded",
        `RAG storage cap of the ${caller.customer.tier} tier reached: ${outcome.usedBytes} of ${cap} bytes used, this document needs ${upload.bytes.length}; delete documents or move to a higher tier`,
      );
    }
    if (outcome.kind === "existing") return { document: outcome.document, created: false };
    if (inline) {
      const processed = await this.worker.processClaimed(outcome.document, true);
      return { document: processed ?? outcome.document, created: true };
    }
    this.worker.nudge();
    return { document: outcome.document, created: true };
  }

  async listDocuments(
    caller: Caller,
    collectionId: string,
    page: { status?: RagDocument["status"]; limit: number; offset: number },
  ): Promise<RagDocument[]> {
    const collection = await this.collection(caller, collectionId);
    return this.documents.list(caller.customer.id, collection.id, page);
  }

  /** A document whose collection the caller may read: else 404 / 403. */
  async document(caller: Caller, id: string): Promise<RagDocument> {
    const doc = await this.documents.get(caller.customer.id, id);
    if (!doc) throw new GatewayError("resource_not_found", `document ${id} not found`);
    await this.collection(caller, doc.collectionId);
    return doc;
  }

  async documentChunks(
    caller: Caller,
    doc: RagDocument,
    page: { limit: number; offset: number },
  ): Promise<RagChunk[]> {
    return this.chunks.listForDocument(caller.customer.id, doc.id, page);
  }

  async deleteDocument(caller: Caller, id: string): Promise<void> {
    await this.document(caller, id);
    if (!(await this.documents.delete(caller.customer.id, id))) {
      throw new GatewayError("resource_not_found", `document ${id} not found`);
    }
  }

  async usage(caller: Caller): Promise<RagUsage> {
    return this.documents.usage(caller.customer.id);
  }
}

/** A key may not create (or reclassify) a collection above its own level: it could not read it. */
function assertWritable(caller: Caller, level: ClassificationLevel): void {
  const keyLevel = caller.key.classificationFloor;
  if (!canReadCollection(keyLevel, { classification: level })) {
    throw new GatewayError(
      "classification_restricted",
      `a key at ${keyLevel} cannot classify a collection ${level}: it could not read it`,
    );
  }
}
