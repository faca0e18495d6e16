import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { isStorableText } from "../../../core/storable-text.js";
import type { DocumentUpload } from "../../../rag/rag-service.js";
import { errorSchema, listBody } from "../common-schemas.js";
import { spoolMultipart } from "../compat/multipart-spool.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { parseOrThrow } from "../validation.js";
import { ragErrors } from "./rag-collections.js";
import {
  collectionParams,
  documentGetQuery,
  documentListQuery,
  documentParams,
  ragDeletedSchema,
  ragDocumentListSchema,
  ragDocumentSchema,
  ragDocumentMultipartSchema,
  ragDocumentUploadSchema,
  ragMetadataSchema,
} from "./rag-schemas.js";
import { documentJson } from "./rag-wire.js";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A stored file name: printable, bounded, storable; else a name for the format. */
function cleanFilename(name: string | undefined, fallback: string): string {
  const printable = [...(name ?? "")].filter((ch) => (ch.codePointAt(0) ?? 0) >= 0x20).join("");
  const bounded = printable.slice(0, 255).trim();
  return bounded && isStorableText(bounded) ? bounded : fallback;
}

function metadataField(value: string | string[] | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  const text = Array.isArray(value) ? value[value.length - 1] : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? "");
  } catch {
    throw new GatewayError("validation_failed", "the metadata field must be a JSON object", {
      detail: [{ loc: ["body", "metadata"], msg: "invalid JSON", type: "json_invalid" }],
    });
  }
  return parseOrThrow(ragMetadataSchema, parsed, "body");
}

/** The upload as JSON (text or base64) or as a multipart/form-data file. */
async function readUpload(
  request: { headers: Record<string, string | string[] | undefined>; body: unknown },
  maxBytes: number,
): Promise<DocumentUpload> {
  const type = String(request.headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const spooled = await spoolMultipart(
      request.headers,
      request.body as Readable,
      maxBytes,
      "document",
    );
    try {
      return {
        bytes: await readFile(spooled.file.path),
        filename: cleanFilename(spooled.file.filename, "document"),
        contentType: spooled.file.mimeType,
        metadata: metadataField(spooled.fields.metadata),
      };
    } finally {
      await spooled.cleanup();
    }
  }
  if (type.startsWith("application/json")) {
    const body = parseOrThrow(ragDocumentUploadSchema, request.body ?? {}, "body");
    let bytes: Buffer;
    if (body.content !== undefined) bytes = Buffer.from(body.content, "utf8");
    else {
      const b64 = (body.content_base64 ?? "").replace(/\s+/g, "");
      if (!BASE64.test(b64) || b64.length % 4 !== 0) {
        throw new GatewayError("validation_failed", "content_base64 is not valid base64", {
          detail: [{ loc: ["body", "content_base64"], msg: "invalid base64", type: "base64" }],
        });
      }
      bytes = Buffer.from(b64, "base64");
    }
    return {
      bytes,
      filename: cleanFilename(body.filename, "document"),
      contentType: body.content_type ?? (body.content !== undefined ? "text/plain" : undefined),
      metadata: body.metadata,
    };
  }
  throw new GatewayError(
    "unsupported_media_type",
    "send the document as application/json or multipart/form-data",
  );
}

/** RAG documents (spec 4.9; docs/rag.md). Always the caller's customer and readable collections. */
export function ragDocumentRoutes(ctx: AppContext): AnyRouteSpec[] {
  const rag = ctx.rag;
  const who = (c: Caller | undefined) => c as Caller;
  return [
    route({
      method: "POST",
      path: "/api/v1/rag/collections/:id/documents",
      tag: "rag",
      summary:
        "Upload a document: JSON RagDocumentUpload, or multipart/form-data (file, optional metadata JSON); text, Markdown, HTML or PDF",
      audit: "rag.document.upload",
      params: collectionParams,
      rawBody: true,
      requestBodies: {
        "application/json": ragDocumentUploadSchema,
        "multipart/form-data": ragDocumentMultipartSchema,
      },
      responses: {
        200: {
          description: "the same bytes are already in the collection",
          schema: ragDocumentSchema,
        },
        201: {
          description: "stored and ingested (status ready or failed)",
          schema: ragDocumentSchema,
        },
        202: {
          description: "stored and queued for ingestion (status queued)",
          schema: ragDocumentSchema,
        },
        413: {
          description:
            "the document is over RAG_MAX_DOCUMENT_BYTES (request_too_large) or the tier's storage cap would be passed (storage_cap_exceeded)",
          schema: errorSchema,
        },
        415: {
          description: "not JSON or multipart, or not a supported document format",
          schema: errorSchema,
        },
        ...ragErrors,
        422: {
          description: "validation failed: empty, unreadable or corrupt document",
          schema: errorSchema,
        },
      },
      handler: async ({ params, request, caller }) => {
        const collection = await rag.collection(who(caller), params.id);
        const upload = await readUpload(request, rag.maxDocumentBytes);
        const { document, created } = await rag.upload(who(caller), collection.id, upload);
        const status = !created ? 200 : document.status === "queued" ? 202 : 201;
        return { status, body: documentJson(document) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/rag/collections/:id/documents",
      tag: "rag",
      summary: "A collection's documents, newest first (filter by status)",
      params: collectionParams,
      query: documentListQuery,
      responses: {
        200: { description: "RagDocumentList", schema: ragDocumentListSchema },
        ...ragErrors,
      },
      handler: async ({ params, query, caller }) => {
        const rows = await rag.listDocuments(who(caller), params.id, query);
        const page = listBody(rows, query.limit);
        return { status: 200, body: { ...page, data: page.data.map((d) => documentJson(d)) } };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/rag/documents/:id",
      tag: "rag",
      summary:
        "One document: ingestion status, scan results; with include=chunks its chunks (text after PII redaction, injection marks)",
      params: documentParams,
      query: documentGetQuery,
      responses: { 200: { description: "RagDocument", schema: ragDocumentSchema }, ...ragErrors },
      handler: async ({ params, query, caller }) => {
        const doc = await rag.document(who(caller), params.id);
        const chunks =
          query.include === "chunks"
            ? await rag.documentChunks(who(caller), doc, {
                limit: query.chunk_limit,
                offset: query.chunk_offset,
              })
            : undefined;
        return {
          status: 200,
          body: documentJson(doc, chunks?.slice(0, query.chunk_limit)),
        };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/rag/documents/:id",
      tag: "rag",
      summary: "Delete a document with its chunks (its bytes no longer count toward the cap)",
      audit: "rag.document.delete",
      params: documentParams,
      responses: { 200: { description: "deleted", schema: ragDeletedSchema }, ...ragErrors },
      handler: async ({ params, caller }) => {
        await rag.deleteDocument(who(caller), params.id);
        return { status: 200, body: { id: params.id, object: "rag.document", deleted: true } };
      },
    }),
  ];
}
