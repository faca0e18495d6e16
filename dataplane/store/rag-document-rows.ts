import type { DocumentStatus, RagChunk, RagDocument } from "../rag/rag-types.js";

/** Rows of rag_documents and the shapes RagDocumentRepository takes and gives. */

export interface DocumentRow {
  id: string;
  customer_id: string;
  collection_id: string;
  key_id: string;
  filename: string;
  content_type: string;
  content_hash: string;
  bytes: number | string;
  status: DocumentStatus;
  error_code: string | null;
  error: string | null;
  metadata: Record<string, unknown>;
  chunk_count: number;
  page_count: number | null;
  token_count: number;
  pii_redactions: number;
  injection_chunks: number;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  processed_at: Date | null;
}

export const DOC_COLUMNS = `id, customer_id, collection_id, key_id, filename, content_type, content_hash, bytes,
  status, error_code, error, metadata, chunk_count, page_count, token_count, pii_redactions, injection_chunks,
  attempts, created_at, updated_at, processed_at`;

export const toDocument = (r: DocumentRow): RagDocument => ({
  id: r.id,
  customerId: r.customer_id,
  collectionId: r.collection_id,
  keyId: r.key_id,
  filename: r.filename,
  contentType: r.content_type,
  contentHash: r.content_hash,
  bytes: Number(r.bytes),
  status: r.status,
  error: r.error === null ? null : { code: r.error_code ?? "ingestion_failed", message: r.error },
  metadata: r.metadata,
  chunkCount: Number(r.chunk_count),
  pageCount: r.page_count === null ? null : Number(r.page_count),
  tokenCount: Number(r.token_count),
  piiRedactions: Number(r.pii_redactions),
  injectionChunks: Number(r.injection_chunks),
  attempts: Number(r.attempts),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  processedAt: r.processed_at === null ? null : new Date(r.processed_at),
});

export type UploadOutcome =
  | { kind: "created"; document: RagDocument }
  /** The same bytes are already in the collection (queued, processing or ready). */
  | { kind: "existing"; document: RagDocument }
  /** The customer's stored bytes plus this document would pass the tier's cap. */
  | { kind: "over_cap"; usedBytes: number };

export interface IngestResult {
  chunks: RagChunk[];
  pageCount: number | null;
  tokenCount: number;
  piiRedactions: number;
  injectionChunks: number;
}

export interface RagUsage {
  collections: number;
  documents: number;
  chunks: number;
  bytes: number;
}
