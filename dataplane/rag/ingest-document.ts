import { GatewayError } from "../core/errors.js";
import { classificationRank, type Caller } from "../core/identity.js";
import { newId } from "../core/ids.js";
import type { GuardrailPolicy } from "../guardrails/policy/policy-schema.js";
import type { IngestResult } from "../store/rag-document-repository.js";
import { chunkSections } from "./chunk-text.js";
import type { ExtractedDocument } from "./extract-text.js";
import type { EmbedChunks, EmbedOptions } from "./rag-embedder.js";
import type { RagChunk, RagCollection, RagDocument } from "./rag-types.js";
import { applyPiiPolicy, injectionMark, redactionsIn } from "./scan-document.js";

export interface IngestInput {
  document: RagDocument;
  collection: RagCollection;
  /** The uploading key: embeddings run as it. */
  caller: Caller;
  extracted: ExtractedDocument;
  /** The guardrail policy in force for the uploading key (customer policy + key override). */
  policy: GuardrailPolicy;
}

/**
 * A document's text to stored chunks: the PII policy (redact or refuse), token chunking with
 * overlap, an indirect-injection mark per chunk, and embeddings when the collection names a model.
 */
export async function ingestDocument(
  input: IngestInput,
  embed: EmbedChunks,
  embedOptions: EmbedOptions = {},
): Promise<IngestResult> {
  const { document, collection, policy } = input;
  const sections = applyPiiPolicy(input.extracted.sections, policy);
  const drafts = chunkSections(sections, {
    sizeTokens: collection.chunkSizeTokens,
    overlapTokens: collection.chunkOverlapTokens,
  });
  const vectors = collection.embeddingModel
    ? await embed(
        input.caller,
        {
          model: collection.embeddingModel,
          classification:
            classificationRank(collection.classification) >=
            classificationRank(input.caller.key.classificationFloor)
              ? collection.classification
              : input.caller.key.classificationFloor,
          texts: drafts.map((d) => (d.heading ? `${d.heading}\n${d.text}` : d.text)),
          source: { collectionId: collection.id, documentId: document.id },
        },
        embedOptions,
      )
    : drafts.map(() => null);
  const dimensions = vectors.find((v) => v !== null)?.length;
  if (
    dimensions !== undefined &&
    collection.embeddingDimensions !== null &&
    dimensions !== collection.embeddingDimensions
  ) {
    throw new GatewayError(
      "validation_failed",
      `the embedding model ${collection.embeddingModel} now returns ${dimensions} dimensions; the collection's vectors have ${collection.embeddingDimensions}`,
    );
  }
  const chunks: RagChunk[] = drafts.map((draft, position) => {
    const mark = injectionMark(draft.text, policy.injection.threshold);
    const pii = redactionsIn(draft.text);
    return {
      id: newId("rchk"),
      customerId: document.customerId,
      collectionId: document.collectionId,
      documentId: document.id,
      position,
      text: draft.text,
      heading: draft.heading,
      page: draft.page,
      tokenCount: draft.tokenCount,
      injection: mark.injection,
      injectionScore: mark.score,
      piiRedactions: pii.count,
      piiEntities: pii.entities,
      embedding: vectors[position] ?? null,
    };
  });
  return {
    chunks,
    pageCount: input.extracted.pageCount,
    tokenCount: chunks.reduce((sum, c) => sum + c.tokenCount, 0),
    piiRedactions: chunks.reduce((sum, c) => sum + c.piiRedactions, 0),
    injectionChunks: chunks.filter((c) => c.injection).length,
  };
}

/** The extracted text kept for the ingestion job (rag_document_sources.data), as JSON bytes. */
export function encodeExtracted(extracted: ExtractedDocument): Buffer {
  return Buffer.from(JSON.stringify(extracted), "utf8");
}

export function decodeExtracted(data: Buffer): ExtractedDocument {
  return JSON.parse(data.toString("utf8")) as ExtractedDocument;
}
