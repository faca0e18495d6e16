import { z } from "zod";
import { idParam } from "../adapters/http/common-schemas.js";
import { safeText } from "../prompts/prompt-schemas.js";

/** Search modes (docs/rag.md "Search"). */
export const SEARCH_MODES = ["keyword", "vector", "hybrid"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

const metadataValue = z.union([safeText(500), z.number().finite(), z.boolean()]);

/** Filters on the chunk's document; every condition given must hold. */
export const ragSearchFilter = z
  .strictObject({
    document_ids: z.array(idParam).min(1).max(100).optional(),
    metadata: z
      .record(safeText(100).min(1), z.union([metadataValue, z.array(metadataValue).min(1).max(50)]))
      .refine((m) => Object.keys(m).length <= 20, "at most 20 metadata keys")
      .optional()
      .meta({
        description:
          "document metadata: key -> value (equal) or list of values (equal to any of them)",
      }),
  })
  .meta({ id: "RagSearchFilter" });

const searchFields = {
  collection_id: idParam,
  query: safeText(8_000)
    .min(1)
    .refine((q) => q.trim() !== "", "must not be blank"),
  mode: z.enum(SEARCH_MODES).optional().meta({
    description: "default: hybrid when the collection has an embedding model, else keyword",
  }),
  filter: ragSearchFilter.optional(),
};

export const ragSearchRequest = z
  .strictObject({
    ...searchFields,
    top_k: z.number().int().min(1).max(100).default(10),
    include_flagged: z.boolean().default(true).meta({
      description:
        "return chunks flagged as indirect prompt injection (marked `injection: true`); false leaves them out",
    }),
  })
  .meta({ id: "RagSearchRequest" });
export type RagSearchRequest = z.output<typeof ragSearchRequest>;

const rankAndScore = z
  .object({ rank: z.number().int(), score: z.number() })
  .nullable()
  .meta({ id: "RagRankScore" });

export const ragSearchResult = z
  .object({
    object: z.literal("rag.search.result"),
    chunk_id: z.string(),
    document_id: z.string(),
    filename: z.string(),
    position: z.number().int().meta({ description: "0-based order of the chunk in its document" }),
    heading: z.string().nullable(),
    page: z.number().int().nullable(),
    text: z.string(),
    score: z.number().meta({
      description: "keyword: BM25; vector: cosine similarity; hybrid: reciprocal rank fusion",
    }),
    rank: z.number().int(),
    keyword: rankAndScore.meta({ description: "the chunk's place in the keyword list, if any" }),
    vector: rankAndScore.meta({ description: "the chunk's place in the vector list, if any" }),
    injection: z.boolean().meta({
      description: "indirect prompt injection was detected in this chunk at ingestion",
    }),
    injection_score: z.number(),
    document_metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "RagSearchResult" });

export const ragSearchResponse = z
  .object({
    object: z.literal("rag.search"),
    collection_id: z.string(),
    mode: z.enum(SEARCH_MODES),
    ranking: z.object({
      keyword: z.literal("bm25").nullable(),
      vector: z.enum(["pgvector_hnsw", "exact_scan"]).nullable(),
      fusion: z.literal("rrf").nullable(),
      rrf_k: z.number().int().nullable(),
    }),
    data: z.array(ragSearchResult),
  })
  .meta({ id: "RagSearchResponse" });

export const ragQueryRequest = z
  .strictObject({
    ...searchFields,
    model: safeText(256).min(1),
    top_k: z.number().int().min(1).max(20).default(5),
    stream: z.boolean().default(false),
    include_flagged: z.boolean().default(false).meta({
      description:
        "opt in to giving the model chunks flagged as indirect prompt injection (default: they are left out)",
    }),
    max_context_tokens: z.number().int().min(100).max(100_000).default(4_000),
    instructions: safeText(4_000).optional().meta({
      description: "extra instructions appended to the gateway's grounding instructions",
    }),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().min(1).max(100_000).optional(),
  })
  .meta({ id: "RagQueryRequest" });
export type RagQueryRequest = z.output<typeof ragQueryRequest>;

export const ragQuerySource = z
  .object({
    number: z.number().int().meta({ description: "the [n] the answer cites" }),
    chunk_id: z.string(),
    document_id: z.string(),
    filename: z.string(),
    position: z.number().int(),
    heading: z.string().nullable(),
    page: z.number().int().nullable(),
    score: z.number(),
    injection: z.boolean(),
    cited: z.boolean().meta({ description: "the answer cites this source" }),
  })
  .meta({ id: "RagQuerySource" });

export const ragQueryResponse = z
  .object({
    id: z.string(),
    object: z.literal("rag.query"),
    created: z.number().int(),
    model: z.string(),
    collection_id: z.string(),
    mode: z.enum(SEARCH_MODES),
    answer: z.string(),
    finish_reason: z.string().nullable(),
    citations: z.array(z.number().int()).meta({ description: "source numbers cited, in order" }),
    sources: z.array(ragQuerySource),
    excluded_flagged: z.number().int().meta({
      description: "retrieved chunks left out of the context as indirect prompt injection",
    }),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
  })
  .meta({ id: "RagQueryResponse" });
