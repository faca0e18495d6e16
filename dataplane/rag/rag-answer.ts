import { citedNumbers, type NumberedSource } from "./grounded-prompt.js";
import type { SearchHit } from "./rag-search.js";
import type { SearchMode } from "./rag-search-schemas.js";

/**
 * The chunks a query may give the model: flagged chunks (indirect prompt injection) are left out
 * unless the caller opted in, then the best `topK` remain. `excludedFlagged` counts the flagged
 * chunks that ranked above the last chunk kept (those that would otherwise have been given).
 */
export function contextCandidates(
  hits: readonly SearchHit[],
  topK: number,
  includeFlagged: boolean,
): { kept: SearchHit[]; excludedFlagged: number } {
  const kept = hits.filter((h) => includeFlagged || !h.chunk.injection).slice(0, topK);
  if (includeFlagged) return { kept, excludedFlagged: 0 };
  const last = kept.at(-1)?.rank ?? Infinity;
  const excludedFlagged = hits.filter((h) => h.chunk.injection && h.rank <= last).length;
  return { kept, excludedFlagged: Math.min(excludedFlagged, topK) };
}

export function sourceJson(s: NumberedSource, cited: readonly number[]) {
  return {
    number: s.number,
    chunk_id: s.chunk.id,
    document_id: s.chunk.documentId,
    filename: s.chunk.filename,
    position: s.chunk.position,
    heading: s.chunk.heading,
    page: s.chunk.page,
    score: s.score,
    injection: s.chunk.injection,
    cited: cited.includes(s.number),
  };
}

interface ChatCompletionLike {
  id?: unknown;
  created?: unknown;
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
}

const int = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? Math.round(v) : 0);

/** The query's JSON answer built from the (guarded) chat completion of the grounded prompt. */
export function ragQueryJson(
  completion: Record<string, unknown>,
  meta: {
    requestId: string;
    model: string;
    collectionId: string;
    mode: SearchMode;
    sources: readonly NumberedSource[];
    excludedFlagged: number;
    now: number;
  },
) {
  const c = completion as ChatCompletionLike;
  const choice = c.choices?.[0];
  const answer = typeof choice?.message?.content === "string" ? choice.message.content : "";
  const citations = citedNumbers(answer, meta.sources.length);
  return {
    id: typeof c.id === "string" ? c.id : meta.requestId,
    object: "rag.query" as const,
    created: typeof c.created === "number" ? c.created : Math.floor(meta.now / 1000),
    model: meta.model,
    collection_id: meta.collectionId,
    mode: meta.mode,
    answer,
    finish_reason: typeof choice?.finish_reason === "string" ? choice.finish_reason : null,
    citations,
    sources: meta.sources.map((s) => sourceJson(s, citations)),
    excluded_flagged: meta.excludedFlagged,
    usage: {
      prompt_tokens: int(c.usage?.prompt_tokens),
      completion_tokens: int(c.usage?.completion_tokens),
      total_tokens: int(c.usage?.total_tokens),
    },
  };
}

/** The first event of a streamed query: what the answer's [n] refer to. */
export function sourcesEvent(meta: {
  collectionId: string;
  mode: SearchMode;
  sources: readonly NumberedSource[];
  excludedFlagged: number;
}) {
  return {
    object: "rag.query.sources" as const,
    collection_id: meta.collectionId,
    mode: meta.mode,
    // Which sources the answer cites is known only at its end: read its [n] markers.
    sources: meta.sources.map((s) => {
      const { cited: _unknownYet, ...source } = sourceJson(s, []);
      return source;
    }),
    excluded_flagged: meta.excludedFlagged,
  };
}
