import { createHash } from "node:crypto";
import type { ClassificationLevel } from "../../dataplane/core/identity.js";
import type { RagChunk } from "../../dataplane/rag/rag-types.js";
import type { Database } from "../../dataplane/store/database.js";
import { RagChunkRepository } from "../../dataplane/store/rag-chunk-repository.js";
import { RagCollectionRepository } from "../../dataplane/store/rag-collection-repository.js";
import { RagDocumentRepository } from "../../dataplane/store/rag-document-repository.js";

export interface SeedChunk {
  text: string;
  heading?: string | null;
  page?: number | null;
  injection?: boolean;
  /** Stored as given (callers pass unit vectors). */
  embedding?: number[] | null;
  /** Defaults to the number of whitespace-separated words. */
  tokenCount?: number;
}

export interface SeedDocument {
  id: string;
  filename?: string;
  metadata?: Record<string, unknown>;
  chunks: SeedChunk[];
}

export interface SeedCollection {
  customerId: string;
  collectionId: string;
  name?: string;
  classification?: ClassificationLevel;
  embeddingModel?: string | null;
}

/**
 * Writes a collection and ready documents with their chunks through the RAG repositories (upload,
 * claim, complete: the same writes ingestion makes, chunks inserted in batches), without parsing or
 * scanning anything: for search tests and benchmarks that need known chunks fast. Chunk ids are
 * `<document id>-<position>`.
 */
export class RagSeeder {
  readonly collections: RagCollectionRepository;
  readonly documents: RagDocumentRepository;
  readonly chunks: RagChunkRepository;

  /**
   * `indexFirst: false` leaves the HNSW index (where pgvector exists) to be built after the
   * seeding, by `chunks.prepareDimensions`: one build instead of an update per inserted row.
   */
  constructor(
    db: Database,
    private readonly options: { indexFirst?: boolean } = {},
  ) {
    this.collections = new RagCollectionRepository(db);
    this.documents = new RagDocumentRepository(db);
    this.chunks = new RagChunkRepository(db);
  }

  async collection(c: SeedCollection, now = new Date()): Promise<void> {
    const created = await this.collections.create(
      {
        id: c.collectionId,
        customerId: c.customerId,
        name: c.name ?? c.collectionId,
        description: null,
        classification: c.classification ?? "internal",
        embeddingModel: c.embeddingModel ?? null,
        chunkSizeTokens: 400,
        chunkOverlapTokens: 50,
        metadata: {},
      },
      now,
    );
    if (!created) throw new Error(`collection ${c.collectionId} exists`);
  }

  async document(c: SeedCollection, d: SeedDocument, now = new Date()): Promise<void> {
    const body = Buffer.from(d.chunks.map((ch) => ch.text).join("\n"));
    // Stored already claimed by the seeder: a gateway's ingestion worker polling the same store
    // must not take the document first.
    const owner = `seed-${d.id}`;
    const uploaded = await this.documents.upload(
      {
        id: d.id,
        customerId: c.customerId,
        collectionId: c.collectionId,
        keyId: "key_seed",
        filename: d.filename ?? `${d.id}.txt`,
        contentType: "text/plain",
        contentHash: createHash("sha256").update(d.id).update(body).digest("hex"),
        bytes: body.length,
        metadata: d.metadata ?? {},
      },
      body,
      null,
      now,
      { owner, leaseUntil: new Date(now.getTime() + 600_000) },
    );
    if (uploaded.kind !== "created") throw new Error(`document ${d.id}: ${uploaded.kind}`);
    const chunks: RagChunk[] = d.chunks.map((ch, position) => ({
      id: `${d.id}-${position}`,
      customerId: c.customerId,
      collectionId: c.collectionId,
      documentId: d.id,
      position,
      text: ch.text,
      heading: ch.heading ?? null,
      page: ch.page ?? null,
      tokenCount: ch.tokenCount ?? ch.text.split(/\s+/).filter(Boolean).length,
      injection: ch.injection ?? false,
      injectionScore: ch.injection ? 0.99 : 0.01,
      piiRedactions: 0,
      piiEntities: [],
      embedding: ch.embedding ?? null,
    }));
    const first = chunks.find((ch) => ch.embedding)?.embedding;
    if (first) {
      if (this.options.indexFirst !== false) await this.chunks.prepareDimensions(first);
      await this.collections.setEmbeddingDimensions(c.customerId, c.collectionId, first.length);
    }
    const done = await this.documents.complete(
      d.id,
      owner,
      {
        chunks,
        pageCount: null,
        tokenCount: chunks.reduce((s, ch) => s + ch.tokenCount, 0),
        piiRedactions: 0,
        injectionChunks: chunks.filter((ch) => ch.injection).length,
      },
      now,
    );
    if (!done) throw new Error(`document ${d.id} was not completed`);
  }
}
