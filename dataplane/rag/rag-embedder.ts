import type { ClassificationLevel, Caller } from "../core/identity.js";

export interface EmbedChunksRequest {
  model: string;
  /** The call's declared classification (the collection's, raised to the key's floor). */
  classification: ClassificationLevel;
  texts: readonly string[];
  /** Whose chunks these are: each embeddings call's audit record names them (details.rag). */
  source: { collectionId: string; documentId: string };
}

/**
 * Embeds chunk texts with the collection's embedding model as calls of the uploading key through
 * the gateway's own pipeline (limits, guardrails, routing, metering, audit). One vector (unit
 * length) per text, or null for a text the request guardrails refused to send (such a chunk stays
 * keyword-searchable). Throws a GatewayError when the calls cannot be made (limits, upstream).
 */
export type EmbedChunks = (
  caller: Caller,
  request: EmbedChunksRequest,
  options?: EmbedOptions,
) => Promise<(number[] | null)[]>;

export interface EmbedOptions {
  /**
   * How long, in total, to wait out rate-limit answers (429 with Retry-After) and go on with the
   * same batch, instead of failing the attempt (which would embed the document again from the
   * start). 0 (the default): fail at once, as an upload that is ingested inline does.
   */
  limitWaitMs?: number;
}

/** Texts per embeddings call. */
export const EMBED_BATCH = 32;
