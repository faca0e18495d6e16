import type { DocumentStatus, RagDocument } from "../rag/rag-types.js";
import {
  DOC_COLUMNS,
  toDocument,
  type DocumentRow,
  type IngestResult,
  type RagUsage,
  type UploadOutcome,
} from "./rag-document-rows.js";
import type { Database, Queryable } from "./database.js";
import { insertChunks } from "./rag-chunk-repository.js";

export type { IngestResult, RagUsage, UploadOutcome } from "./rag-document-rows.js";

export type NewDocument = Pick<
  RagDocument,
  | "id"
  | "customerId"
  | "collectionId"
  | "keyId"
  | "filename"
  | "contentType"
  | "contentHash"
  | "bytes"
  | "metadata"
>;

/**
 * RAG documents, their uploaded bytes (kept until ingestion ends) and their processing leases.
 * Every customer-facing query names the customer; the worker's claim/complete/fail go by
 * document id and lease owner.
 */
export class RagDocumentRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores an upload as `queued`, unless the same bytes are already in the collection (a failed
   * one is queued again with the new bytes' name and metadata), or the customer's cap would be
   * passed. Serialised per customer, so concurrent uploads cannot pass the cap together.
   */
  async upload(
    doc: NewDocument,
    source: Buffer,
    capBytes: number | null,
    now: Date,
    /** Stores it already claimed (`processing`) by this worker, to be ingested at once. */
    claim?: { owner: string; leaseUntil: Date },
  ): Promise<UploadOutcome> {
    return this.db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('rag_usage:' || $1))", [
        doc.customerId,
      ]);
      const [existing] = await tx.query<DocumentRow>(
        `SELECT ${DOC_COLUMNS} FROM rag_documents
          WHERE customer_id = $1 AND collection_id = $2 AND content_hash = $3`,
        [doc.customerId, doc.collectionId, doc.contentHash],
      );
      if (existing && existing.status !== "failed") {
        return { kind: "existing", document: toDocument(existing) };
      }
      const used = await usedBytes(tx, doc.customerId, existing?.id ?? null);
      if (capBytes !== null && used + doc.bytes > capBytes) {
        return { kind: "over_cap", usedBytes: used };
      }
      const state = [
        claim ? "processing" : "queued",
        claim ? 1 : 0,
        claim?.owner ?? null,
        claim?.leaseUntil ?? null,
      ];
      const [row] = existing
        ? await tx.query<DocumentRow>(
            `UPDATE rag_documents SET filename = $2, content_type = $3, metadata = $4::jsonb, key_id = $6,
                status = $7, error_code = NULL, error = NULL, attempts = $8, lease_owner = $9,
                lease_until = $10, updated_at = $5
              WHERE id = $1 RETURNING ${DOC_COLUMNS}`,
            [
              existing.id,
              doc.filename,
              doc.contentType,
              JSON.stringify(doc.metadata),
              now,
              doc.keyId,
              ...state,
            ],
          )
        : await tx.query<DocumentRow>(
            `INSERT INTO rag_documents (id, customer_id, collection_id, key_id, filename,
               content_type, content_hash, bytes, metadata, created_at, updated_at, status,
               attempts, lease_owner, lease_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $10, $11, $12, $13, $14)
             RETURNING ${DOC_COLUMNS}`,
            [
              doc.id,
              doc.customerId,
              doc.collectionId,
              doc.keyId,
              doc.filename,
              doc.contentType,
              doc.contentHash,
              doc.bytes,
              JSON.stringify(doc.metadata),
              now,
              ...state,
            ],
          );
      if (!row) throw new Error("document upload wrote no row");
      await tx.query(
        `INSERT INTO rag_document_sources (document_id, data) VALUES ($1, $2)
         ON CONFLICT (document_id) DO UPDATE SET data = EXCLUDED.data`,
        [row.id, source],
      );
      return { kind: "created", document: toDocument(row) };
    });
  }

  async get(customerId: string, id: string): Promise<RagDocument | undefined> {
    const [row] = await this.db.query<DocumentRow>(
      `SELECT ${DOC_COLUMNS} FROM rag_documents WHERE customer_id = $1 AND id = $2`,
      [customerId, id],
    );
    return row ? toDocument(row) : undefined;
  }

  /** A page of a collection's documents, newest first (limit + 1 rows). */
  async list(
    customerId: string,
    collectionId: string,
    opts: { status?: DocumentStatus; limit: number; offset: number },
  ): Promise<RagDocument[]> {
    const rows = await this.db.query<DocumentRow>(
      `SELECT ${DOC_COLUMNS} FROM rag_documents
        WHERE customer_id = $1 AND collection_id = $2 AND ($3::text IS NULL OR status = $3)
        ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
      [customerId, collectionId, opts.status ?? null, opts.limit + 1, opts.offset],
    );
    return rows.map(toDocument);
  }

  /** Deletes a document with its chunks and bytes. */
  async delete(customerId: string, id: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "DELETE FROM rag_documents WHERE customer_id = $1 AND id = $2 RETURNING id",
      [customerId, id],
    );
    return rows.length > 0;
  }

  async usage(customerId: string): Promise<RagUsage> {
    const [row] = await this.db.query<{
      collections: number | string;
      documents: number | string;
      chunks: number | string | null;
      bytes: number | string | null;
    }>(
      `SELECT (SELECT count(*) FROM rag_collections WHERE customer_id = $1) AS collections,
              count(*) AS documents, sum(chunk_count) AS chunks,
              sum(bytes) FILTER (WHERE status <> 'failed') AS bytes
         FROM rag_documents WHERE customer_id = $1`,
      [customerId],
    );
    return {
      collections: Number(row?.collections ?? 0),
      documents: Number(row?.documents ?? 0),
      chunks: Number(row?.chunks ?? 0),
      bytes: Number(row?.bytes ?? 0),
    };
  }

  /**
   * Takes a queued document (the given one, else the oldest) whose lease is free or lapsed, marks
   * it `processing` and counts the attempt. A worker that died leaves a lapsed lease to take over.
   */
  async claim(
    owner: string,
    now: Date,
    leaseUntil: Date,
    id?: string,
  ): Promise<RagDocument | undefined> {
    const [row] = await this.db.query<DocumentRow>(
      `UPDATE rag_documents SET status = 'processing', lease_owner = $1, lease_until = $3,
              attempts = attempts + 1, updated_at = $2
        WHERE id = (SELECT id FROM rag_documents
                     WHERE status IN ('queued', 'processing') AND ($4::text IS NULL OR id = $4)
                       AND (lease_until IS NULL OR lease_until < $2)
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING ${DOC_COLUMNS}`,
      [owner, now, leaseUntil, id ?? null],
    );
    return row ? toDocument(row) : undefined;
  }

  /** Extends a processing lease; false when another worker has taken the document over. */
  async renew(id: string, owner: string, leaseUntil: Date): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE rag_documents SET lease_until = $3
        WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
      [id, owner, leaseUntil],
    );
    return rows.length > 0;
  }

  /** The extracted text of a document waiting for or in ingestion (see ingest-document.ts). */
  async source(id: string): Promise<Buffer | undefined> {
    const [row] = await this.db.query<{ data: Buffer | Uint8Array }>(
      "SELECT data FROM rag_document_sources WHERE document_id = $1",
      [id],
    );
    return row ? Buffer.from(row.data) : undefined;
  }

  /**
   * Stores the chunks and marks the document `ready`, dropping its uploaded bytes; false (and
   * nothing written) when the worker no longer holds the lease.
   */
  async complete(id: string, owner: string, result: IngestResult, now: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [held] = await tx.query<{ id: string }>(
        `SELECT id FROM rag_documents WHERE id = $1 AND lease_owner = $2 AND status = 'processing'
           FOR UPDATE`,
        [id, owner],
      );
      if (!held) return false;
      await tx.query("DELETE FROM rag_chunks WHERE document_id = $1", [id]);
      await insertChunks(tx, result.chunks);
      await tx.query(
        `UPDATE rag_documents SET status = 'ready', error_code = NULL, error = NULL, chunk_count = $2, page_count = $3,
                token_count = $4, pii_redactions = $5, injection_chunks = $6, lease_owner = NULL,
                lease_until = NULL, processed_at = $7, updated_at = $7
          WHERE id = $1`,
        [
          id,
          result.chunks.length,
          result.pageCount,
          result.tokenCount,
          result.piiRedactions,
          result.injectionChunks,
          now,
        ],
      );
      await tx.query("DELETE FROM rag_document_sources WHERE document_id = $1", [id]);
      return true;
    });
  }

  /** Marks the document `failed` with a reason a user can act on, dropping its bytes. */
  async fail(
    id: string,
    owner: string,
    error: { code: string; message: string },
    now: Date,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `UPDATE rag_documents SET status = 'failed', error_code = $3, error = $4,
                lease_owner = NULL, lease_until = NULL, processed_at = $5, updated_at = $5
          WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
        [id, owner, error.code, error.message, now],
      );
      if (rows.length === 0) return false;
      await tx.query("DELETE FROM rag_chunks WHERE document_id = $1", [id]);
      await tx.query("DELETE FROM rag_document_sources WHERE document_id = $1", [id]);
      return true;
    });
  }

  /** Puts a document back in the queue after a transient failure, to be retried from `retryAt`. */
  async retryLater(
    id: string,
    owner: string,
    error: { code: string; message: string },
    retryAt: Date,
  ): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE rag_documents SET status = 'queued', error_code = $3, error = $4, lease_owner = NULL,
              lease_until = $5, updated_at = now()
        WHERE id = $1 AND lease_owner = $2 AND status = 'processing' RETURNING id`,
      [id, owner, error.code, error.message, retryAt],
    );
    return rows.length > 0;
  }
}

async function usedBytes(
  db: Queryable,
  customerId: string,
  exceptId: string | null,
): Promise<number> {
  const [row] = await db.query<{ bytes: number | string | null }>(
    `SELECT sum(bytes) AS bytes FROM rag_documents
      WHERE customer_id = $1 AND status <> 'failed' AND ($2::text IS NULL OR id <> $2)`,
    [customerId, exceptId],
  );
  return Number(row?.bytes ?? 0);
}
