import { GatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import type { RagCollectionRepository } from "../store/rag-collection-repository.js";
import type {
  FoundChunk,
  RagSearchRepository,
  ScoredChunk,
  SearchScope,
} from "../store/rag-search-repository.js";
import type { VectorSearchKind } from "../store/vector-search.js";
import { assertCanReadCollection } from "./rag-access.js";
import { reciprocalRankFusion, RRF_K } from "./reciprocal-rank-fusion.js";
import type { SearchMode } from "./rag-search-schemas.js";
import type { RagCollection } from "./rag-types.js";

/**
 * Embeds a search text with the collection's embedding model as a call of the caller (through the
 * gateway's pipeline: limits, guardrails, routing, metering and audit apply); returns a unit vector.
 */
export type QueryEmbedder = (
  caller: Caller,
  collection: RagCollection,
  text: string,
) => Promise<number[]>;

export interface SearchInput {
  collectionId: string;
  query: string;
  mode?: SearchMode;
  topK: number;
  /** Keep chunks flagged as indirect prompt injection among the results (they stay marked). */
  includeFlagged: boolean;
  documentIds?: readonly string[];
  metadata?: Readonly<Record<string, unknown>>;
}

export interface SearchHit {
  chunk: FoundChunk;
  rank: number;
  score: number;
  keyword: { rank: number; score: number } | null;
  vector: { rank: number; score: number } | null;
}

export interface SearchOutcome {
  collection: RagCollection;
  mode: SearchMode;
  vectorSearch: VectorSearchKind | null;
  hits: SearchHit[];
}

/** How many candidates each list of a hybrid search contributes to the fusion. */
export function hybridDepth(topK: number): number {
  return Math.min(200, Math.max(50, topK * 4));
}

/** Metadata filter as the repository takes it: per key, the objects any of which must be contained. */
export function metadataConditions(
  metadata: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown>[][] {
  return Object.entries(metadata ?? {}).map(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => ({ [key]: v })),
  );
}

/**
 * Search over one collection of the caller's customer: keyword (BM25), vector (nearest chunks to
 * the query's embedding) or hybrid (both lists fused by reciprocal rank, k = 60).
 */
export class RagSearch {
  constructor(
    private readonly deps: {
      collections: RagCollectionRepository;
      search: RagSearchRepository;
      vectorSearch: () => VectorSearchKind;
    },
  ) {}

  /** The caller's collection, or 404 / 403 (classification). */
  async readableCollection(caller: Caller, id: string): Promise<RagCollection> {
    const collection = await this.deps.collections.get(caller.customer.id, id);
    if (!collection) throw new GatewayError("resource_not_found", `collection ${id} not found`);
    assertCanReadCollection(caller.key.classificationFloor, collection);
    return collection;
  }

  /** `embed` makes the query's embedding call (vector and hybrid modes) on behalf of this request. */
  async search(caller: Caller, input: SearchInput, embed: QueryEmbedder): Promise<SearchOutcome> {
    const collection = await this.readableCollection(caller, input.collectionId);
    const mode = input.mode ?? (collection.embeddingModel ? "hybrid" : "keyword");
    if (mode !== "keyword" && !collection.embeddingModel) {
      throw new GatewayError(
        "validation_failed",
        `collection ${collection.id} has no embedding_model, so it has no vectors: use mode "keyword"`,
        { detail: [{ loc: ["body", "mode"], msg: "needs an embedding model", type: "value" }] },
      );
    }
    const scope: SearchScope = {
      customerId: caller.customer.id,
      collectionId: collection.id,
      excludeInjection: !input.includeFlagged,
      ...(input.documentIds ? { documentIds: input.documentIds } : {}),
      metadata: metadataConditions(input.metadata),
    };
    const depth = mode === "hybrid" ? hybridDepth(input.topK) : input.topK;
    const [keyword, vector] = await Promise.all([
      mode === "vector" ? undefined : this.keyword(scope, input.query, depth),
      mode === "keyword"
        ? undefined
        : this.vector(embed, caller, collection, scope, input.query, depth),
    ]);
    const ranked = this.rank(mode, keyword ?? [], vector ?? []).slice(0, input.topK);
    const chunks = await this.deps.search.chunks(
      caller.customer.id,
      ranked.map((r) => r.id),
    );
    const hits: SearchHit[] = [];
    for (const r of ranked) {
      const chunk = chunks.get(r.id);
      if (!chunk) continue; // its document was deleted between the ranking and this read
      hits.push({
        chunk,
        rank: hits.length + 1,
        score: r.score,
        keyword: r.keyword,
        vector: r.vector,
      });
    }
    return {
      collection,
      mode,
      vectorSearch: mode === "keyword" ? null : this.deps.vectorSearch(),
      hits,
    };
  }

  private async keyword(scope: SearchScope, query: string, limit: number) {
    const lexemes = await this.deps.search.queryLexemes(query);
    return this.deps.search.keyword(scope, lexemes, limit);
  }

  private async vector(
    embed: QueryEmbedder,
    caller: Caller,
    collection: RagCollection,
    scope: SearchScope,
    query: string,
    limit: number,
  ): Promise<ScoredChunk[]> {
    // No chunk has a vector yet (nothing ingested): nothing to compare, no embedding call.
    if (collection.embeddingDimensions === null) return [];
    const vector = await embed(caller, collection, query);
    if (vector.length !== collection.embeddingDimensions) {
      throw new GatewayError(
        "upstream_unavailable",
        `embedding model ${collection.embeddingModel} returned ${vector.length} dimensions; the collection's chunks have ${collection.embeddingDimensions}`,
      );
    }
    return this.deps.search.vector(scope, vector, limit);
  }

  private rank(
    mode: SearchMode,
    keyword: ScoredChunk[],
    vector: ScoredChunk[],
  ): {
    id: string;
    score: number;
    keyword: SearchHit["keyword"];
    vector: SearchHit["vector"];
  }[] {
    const place = (list: ScoredChunk[], id: string) => {
      const i = list.findIndex((c) => c.chunkId === id);
      return i < 0 ? null : { rank: i + 1, score: list[i]!.score };
    };
    if (mode !== "hybrid") {
      const list = mode === "keyword" ? keyword : vector;
      return list.map((c, i) => ({
        id: c.chunkId,
        score: c.score,
        keyword: mode === "keyword" ? { rank: i + 1, score: c.score } : null,
        vector: mode === "vector" ? { rank: i + 1, score: c.score } : null,
      }));
    }
    return reciprocalRankFusion(
      [{ ids: keyword.map((c) => c.chunkId) }, { ids: vector.map((c) => c.chunkId) }],
      RRF_K,
    ).map((f) => ({
      id: f.id,
      score: f.score,
      keyword: place(keyword, f.id),
      vector: place(vector, f.id),
    }));
  }
}
