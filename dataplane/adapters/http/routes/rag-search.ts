import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import { groundedMessages, selectSources } from "../../../rag/grounded-prompt.js";
import { contextCandidates, ragQueryJson, sourcesEvent } from "../../../rag/rag-answer.js";
import { RagSearch, type SearchHit, type SearchOutcome } from "../../../rag/rag-search.js";
import {
  ragQueryRequest,
  ragQueryResponse,
  ragSearchRequest,
  ragSearchResponse,
  type RagQueryRequest,
  type RagSearchRequest,
} from "../../../rag/rag-search-schemas.js";
import { RagSearchRepository } from "../../../store/rag-search-repository.js";
import { formatSseEvent } from "../../../upstream/sse-parser.js";
import { errorSchema } from "../common-schemas.js";
import { clientAbortSignal } from "../compat/call-lifecycle.js";
import { pipelineEmbedder, ragCall } from "../compat/rag-calls.js";
import { executeJsonCall } from "../compat/relay-json.js";
import { relayStream } from "../compat/relay-stream.js";
import { route, type AnyRouteSpec, type HandlerInput } from "../route-table.js";
import { RRF_K } from "../../../rag/reciprocal-rank-fusion.js";

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: {
    description: "classification_restricted: the collection is above the key's level",
    schema: errorSchema,
  },
  404: { description: "collection not found", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
  429: {
    description: "rate limit exceeded (the search's own or its model calls')",
    schema: errorSchema,
  },
  502: { description: "the embedding or generation model failed", schema: errorSchema },
};

function hitJson(h: SearchHit) {
  return {
    object: "rag.search.result" as const,
    chunk_id: h.chunk.id,
    document_id: h.chunk.documentId,
    filename: h.chunk.filename,
    position: h.chunk.position,
    heading: h.chunk.heading,
    page: h.chunk.page,
    text: h.chunk.text,
    score: h.score,
    rank: h.rank,
    keyword: h.keyword,
    vector: h.vector,
    injection: h.chunk.injection,
    injection_score: h.chunk.injectionScore,
    document_metadata: h.chunk.documentMetadata,
  };
}

function searchJson(outcome: SearchOutcome) {
  return {
    object: "rag.search" as const,
    collection_id: outcome.collection.id,
    mode: outcome.mode,
    ranking: {
      keyword: outcome.mode === "vector" ? null : ("bm25" as const),
      vector: outcome.vectorSearch,
      fusion: outcome.mode === "hybrid" ? ("rrf" as const) : null,
      rrf_k: outcome.mode === "hybrid" ? RRF_K : null,
    },
    data: outcome.hits.map(hitJson),
  };
}

/** Retrieval and grounded answers over RAG collections (spec 4.9; docs/rag.md). */
export function ragSearchRoutes(ctx: AppContext): AnyRouteSpec[] {
  // The vector search in use was settled when RAG started (pgvector HNSW or an exact scan).
  const vectorKind = () => ctx.rag.chunks.searchKind;
  const search = new RagSearch({
    collections: ctx.rag.collections,
    search: new RagSearchRepository(ctx.db, vectorKind, ctx.config.RAG_EXACT_SCAN_TIMEOUT_MS),
    vectorSearch: vectorKind,
  });

  async function retrieve(
    input: HandlerInput<unknown, unknown, unknown>,
    body: RagSearchRequest | RagQueryRequest,
    topK: number,
    includeFlagged: boolean,
    abort: AbortController,
  ): Promise<SearchOutcome> {
    return search.search(
      input.caller as Caller,
      {
        collectionId: body.collection_id,
        query: body.query,
        ...(body.mode ? { mode: body.mode } : {}),
        topK,
        includeFlagged,
        ...(body.filter?.document_ids ? { documentIds: body.filter.document_ids } : {}),
        ...(body.filter?.metadata ? { metadata: body.filter.metadata } : {}),
      },
      pipelineEmbedder(ctx, input, abort),
    );
  }

  return [
    route({
      method: "POST",
      path: "/v1/rag/search",
      tag: "rag",
      summary: "Search a collection: keyword (BM25), vector or hybrid (reciprocal rank fusion)",
      body: ragSearchRequest,
      managementLimit: true,
      responses: {
        200: { description: "RagSearchResponse", schema: ragSearchResponse },
        ...errors,
      },
      handler: async (input) => {
        const abort = clientAbortSignal(input.reply);
        const outcome = await retrieve(
          input,
          input.body,
          input.body.top_k,
          input.body.include_flagged,
          abort,
        );
        return { status: 200, body: searchJson(outcome) };
      },
    }),
    route({
      method: "POST",
      path: "/v1/rag/query",
      tag: "rag",
      summary:
        "Answer a question from a collection's chunks with numbered citations (JSON, or server-sent events when stream is true)",
      body: ragQueryRequest,
      responses: {
        200: {
          description:
            "RagQueryResponse, or text/event-stream: a rag.query.sources event, then chat.completion.chunk events, then [DONE]",
          schema: ragQueryResponse,
        },
        400: { description: "guardrail violation", schema: errorSchema },
        ...errors,
      },
      handler: async (input) => {
        const body = input.body;
        const abort = clientAbortSignal(input.reply);
        // Flagged chunks are retrieved too (then left out unless opted in) to count them.
        const depth = body.include_flagged ? body.top_k : Math.min(100, body.top_k + 10);
        const outcome = await retrieve(input, body, depth, true, abort);
        const { kept, excludedFlagged } = contextCandidates(
          outcome.hits,
          body.top_k,
          body.include_flagged,
        );
        const sources = selectSources(kept, body.max_context_tokens);
        const meta = {
          collectionId: outcome.collection.id,
          mode: outcome.mode,
          sources,
          excludedFlagged,
        };
        const call = ragCall(ctx, input, outcome.collection, {
          endpoint: "chat.completions",
          model: body.model,
          body: {
            model: body.model,
            messages: groundedMessages(body.query, sources, body.instructions),
            ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
            ...(body.max_tokens === undefined ? {} : { max_tokens: body.max_tokens }),
            ...(body.stream ? { stream: true } : {}),
          },
          stream: body.stream,
          rag: {
            collectionId: outcome.collection.id,
            purpose: "query_answer",
            chunkIds: sources.map((s) => s.chunk.id),
          },
        });
        if (body.stream) {
          return relayStream(ctx, call, input.reply, {
            preamble: formatSseEvent(JSON.stringify(sourcesEvent(meta))),
          });
        }
        return executeJsonCall(ctx, call, abort, {
          path: "/chat/completions",
          present: (completion) =>
            ragQueryJson(completion, {
              ...meta,
              requestId: input.requestId,
              model: body.model,
              now: ctx.clock.now(),
            }),
        });
      },
    }),
  ];
}
