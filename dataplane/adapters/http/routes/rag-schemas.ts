import { z } from "zod";
import { displayName, idParam, listOf, pageQuery } from "../common-schemas.js";
import { CLASSIFICATION_LEVELS } from "../../../core/identity.js";
import { DOCUMENT_STATUSES } from "../../../rag/rag-types.js";

/** Wire shapes of the RAG management API (docs/rag.md); snake_case, one schema per shape. */

const MAX_METADATA_JSON = 16 * 1024;

/**
 * Flat metadata: up to 50 keys, each a string (at most 1000 characters), number, boolean or null,
 * so a search can filter on it by equality (docs/rag.md "Metadata").
 */
export const ragMetadataSchema = z
  .record(
    z.string().min(1).max(64),
    z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]),
  )
  .refine((m) => Object.keys(m).length <= 50, "at most 50 metadata keys")
  .refine((m) => JSON.stringify(m).length <= MAX_METADATA_JSON, "metadata is over 16 KiB as JSON")
  .meta({ id: "RagMetadata" });

export const CHUNK_SIZE = { min: 50, max: 4000, default: 400 } as const;
export const CHUNK_OVERLAP_DEFAULT = 50;

const chunkSize = z.number().int().min(CHUNK_SIZE.min).max(CHUNK_SIZE.max);
const chunkOverlap = z
  .number()
  .int()
  .min(0)
  .max(CHUNK_SIZE.max / 2);
const description = z.string().max(2000).nullable();
const classification = z.enum(CLASSIFICATION_LEVELS);

export const ragCollectionCreateSchema = z
  .strictObject({
    name: displayName,
    description: description.optional(),
    /** Default: the creating key's classification level (so it can read what it creates). */
    classification: classification.optional(),
    /** A model routable for the customer; chunks are embedded with it. Absent: keyword search only. */
    embedding_model: z.string().trim().min(1).max(256).nullable().optional(),
    chunk_size_tokens: chunkSize.default(CHUNK_SIZE.default),
    chunk_overlap_tokens: chunkOverlap.default(CHUNK_OVERLAP_DEFAULT),
    metadata: ragMetadataSchema.default({}),
  })
  .refine((c) => c.chunk_overlap_tokens < c.chunk_size_tokens, {
    message: "chunk_overlap_tokens must be below chunk_size_tokens",
    path: ["chunk_overlap_tokens"],
  })
  .meta({ id: "RagCollectionCreate" });

/** Every field optional; the embedding model is fixed at creation (vectors would not compare). */
export const ragCollectionUpdateSchema = z
  .strictObject({
    name: displayName.optional(),
    description: description.optional(),
    classification: classification.optional(),
    chunk_size_tokens: chunkSize.optional(),
    chunk_overlap_tokens: chunkOverlap.optional(),
    metadata: ragMetadataSchema.optional(),
  })
  .meta({ id: "RagCollectionUpdate" });

const timestamp = z.string().meta({ format: "date-time" });

export const ragCollectionSchema = z
  .object({
    id: z.string(),
    object: z.literal("rag.collection"),
    name: z.string(),
    description: z.string().nullable(),
    classification,
    embedding_model: z.string().nullable(),
    embedding_dimensions: z.number().int().nullable(),
    chunk_size_tokens: z.number().int(),
    chunk_overlap_tokens: z.number().int(),
    metadata: ragMetadataSchema,
    document_count: z.number().int(),
    chunk_count: z.number().int(),
    bytes: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "RagCollection" });

export const ragCollectionListSchema = listOf(ragCollectionSchema).meta({
  id: "RagCollectionList",
});

export const ragDeletedSchema = z
  .object({ id: z.string(), object: z.string(), deleted: z.literal(true) })
  .meta({ id: "RagDeleted" });

/** A JSON upload: the text itself, or any supported file as base64. */
export const ragDocumentUploadSchema = z
  .strictObject({
    filename: z.string().trim().min(1).max(255).optional(),
    /** text/plain (default), text/markdown, text/html or application/pdf. */
    content_type: z.string().trim().min(1).max(255).optional(),
    content: z.string().optional(),
    content_base64: z.string().optional(),
    metadata: ragMetadataSchema.default({}),
  })
  .refine((d) => (d.content === undefined) !== (d.content_base64 === undefined), {
    message: "send exactly one of content and content_base64",
    path: ["content"],
  })
  .meta({ id: "RagDocumentUpload" });

/** The multipart form of an upload: one file part, optional metadata as a JSON object text. */
export const ragDocumentMultipartSchema = z
  .object({
    file: z.string().meta({ format: "binary" }),
    metadata: z.string().optional().meta({ description: "RagMetadata as JSON text" }),
  })
  .meta({ id: "RagDocumentMultipart" });

export const ragChunkSchema = z
  .object({
    id: z.string(),
    position: z.number().int(),
    text: z.string(),
    heading: z.string().nullable(),
    page: z.number().int().nullable(),
    token_count: z.number().int(),
    injection: z.boolean(),
    injection_score: z.number(),
    pii_redactions: z.number().int(),
    pii_entities: z.array(z.string()),
  })
  .meta({ id: "RagChunk" });

export const ragDocumentSchema = z
  .object({
    id: z.string(),
    object: z.literal("rag.document"),
    collection_id: z.string(),
    filename: z.string(),
    content_type: z.string(),
    content_hash: z.string(),
    bytes: z.number().int(),
    status: z.enum(DOCUMENT_STATUSES),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    metadata: ragMetadataSchema,
    chunk_count: z.number().int(),
    page_count: z.number().int().nullable(),
    token_count: z.number().int(),
    pii_redactions: z.number().int(),
    injection_chunks: z.number().int(),
    attempts: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
    processed_at: timestamp.nullable(),
    /** With ?include=chunks: the document's chunks in order (at most chunk_limit). */
    chunks: z.array(ragChunkSchema).optional(),
  })
  .meta({ id: "RagDocument" });

export const ragDocumentListSchema = listOf(ragDocumentSchema).meta({ id: "RagDocumentList" });

export const ragUsageSchema = z
  .object({
    object: z.literal("rag.usage"),
    tier: z.string(),
    /** Bytes of uploaded documents kept (failed documents do not count). */
    bytes_used: z.number().int(),
    bytes_cap: z.number().int(),
    bytes_remaining: z.number().int(),
    max_document_bytes: z.number().int(),
    collections: z.number().int(),
    documents: z.number().int(),
    chunks: z.number().int(),
  })
  .meta({ id: "RagUsage" });

export const collectionParams = z.strictObject({ id: idParam });
export const documentParams = z.strictObject({ id: idParam });
export const collectionListQuery = pageQuery;
export const documentListQuery = pageQuery.extend({ status: z.enum(DOCUMENT_STATUSES).optional() });
export const documentGetQuery = z.strictObject({
  include: z.enum(["chunks"]).optional(),
  chunk_limit: z.coerce.number().int().min(1).max(1000).default(100),
  chunk_offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});
