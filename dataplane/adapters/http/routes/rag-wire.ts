import type { z } from "zod";
import type { RagUsage } from "../../../store/rag-document-repository.js";
import type {
  ragChunkSchema,
  ragCollectionSchema,
  ragDocumentSchema,
  ragUsageSchema,
} from "./rag-schemas.js";
import type {
  CollectionTotals,
  RagChunk,
  RagCollection,
  RagDocument,
} from "../../../rag/rag-types.js";

type Metadata = Record<string, string | number | boolean | null>;

export function collectionJson(
  c: RagCollection,
  totals: CollectionTotals,
): z.output<typeof ragCollectionSchema> {
  return {
    id: c.id,
    object: "rag.collection",
    name: c.name,
    description: c.description,
    classification: c.classification,
    embedding_model: c.embeddingModel,
    embedding_dimensions: c.embeddingDimensions,
    chunk_size_tokens: c.chunkSizeTokens,
    chunk_overlap_tokens: c.chunkOverlapTokens,
    metadata: c.metadata as Metadata,
    document_count: totals.documents,
    chunk_count: totals.chunks,
    bytes: totals.bytes,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function chunkJson(c: RagChunk): z.output<typeof ragChunkSchema> {
  return {
    id: c.id,
    position: c.position,
    text: c.text,
    heading: c.heading,
    page: c.page,
    token_count: c.tokenCount,
    injection: c.injection,
    injection_score: c.injectionScore,
    pii_redactions: c.piiRedactions,
    pii_entities: c.piiEntities,
  };
}

export function documentJson(
  d: RagDocument,
  chunks?: RagChunk[],
): z.output<typeof ragDocumentSchema> {
  return {
    id: d.id,
    object: "rag.document",
    collection_id: d.collectionId,
    filename: d.filename,
    content_type: d.contentType,
    content_hash: d.contentHash,
    bytes: d.bytes,
    status: d.status,
    error: d.error,
    metadata: d.metadata as Metadata,
    chunk_count: d.chunkCount,
    page_count: d.pageCount,
    token_count: d.tokenCount,
    pii_redactions: d.piiRedactions,
    injection_chunks: d.injectionChunks,
    attempts: d.attempts,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
    processed_at: d.processedAt === null ? null : d.processedAt.toISOString(),
    ...(chunks ? { chunks: chunks.map(chunkJson) } : {}),
  };
}

export function usageJson(
  tier: string,
  usage: RagUsage,
  capBytes: number,
  maxDocumentBytes: number,
): z.output<typeof ragUsageSchema> {
  return {
    object: "rag.usage",
    tier,
    bytes_used: usage.bytes,
    bytes_cap: capBytes,
    bytes_remaining: Math.max(0, capBytes - usage.bytes),
    max_document_bytes: maxDocumentBytes,
    collections: usage.collections,
    documents: usage.documents,
    chunks: usage.chunks,
  };
}
