import type { ClassificationLevel } from "../core/identity.js";

/** RAG resources as the domain sees them (columns: docs/rag.md "Schema"). */

export interface RagCollection {
  id: string;
  customerId: string;
  name: string;
  description: string | null;
  /** A key whose classification floor is above this level cannot read or search the collection. */
  classification: ClassificationLevel;
  /** The embedding model chunks are embedded with (through the gateway's routing); null: keyword only. */
  embeddingModel: string | null;
  /** Learned from the first embedding; every chunk vector of the collection has this length. */
  embeddingDimensions: number | null;
  chunkSizeTokens: number;
  chunkOverlapTokens: number;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface CollectionTotals {
  documents: number;
  chunks: number;
  bytes: number;
}

export const DOCUMENT_STATUSES = ["queued", "processing", "ready", "failed"] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export interface RagDocument {
  id: string;
  customerId: string;
  collectionId: string;
  /** The key that uploaded it: ingestion (embeddings) runs as this key. */
  keyId: string;
  filename: string;
  contentType: string;
  /** sha256 (hex) of the uploaded bytes: the same bytes in the same collection are one document. */
  contentHash: string;
  bytes: number;
  status: DocumentStatus;
  /** Why the document failed (or why its last attempt did, while it waits to be retried). */
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown>;
  chunkCount: number;
  pageCount: number | null;
  tokenCount: number;
  piiRedactions: number;
  injectionChunks: number;
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  processedAt: Date | null;
}

export interface RagChunk {
  id: string;
  customerId: string;
  collectionId: string;
  documentId: string;
  /** 0-based order of the chunk in its document. */
  position: number;
  text: string;
  /** The nearest heading above the chunk's start (Markdown/HTML headings), if any. */
  heading: string | null;
  /** 1-based PDF page of the chunk's start; null for formats without pages. */
  page: number | null;
  tokenCount: number;
  /** Indirect prompt injection detected in the chunk at ingestion. */
  injection: boolean;
  injectionScore: number;
  piiRedactions: number;
  piiEntities: string[];
  /** Unit vector from the collection's embedding model; null when the collection has none. */
  embedding: number[] | null;
}
