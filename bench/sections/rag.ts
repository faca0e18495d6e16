/**
 * RAG search: the cost of one keyword (BM25 in SQL), vector and hybrid search at 10k and 100k
 * chunks of one collection, on the embedded PGlite with pgvector (HNSW) and without it (exact
 * scan), and on real Postgres (exact scan here; BENCH_POSTGRES_URL). Chunks are seeded through the
 * RAG repositories (batched inserts). Each search runs through the search service the API uses
 * (ranking, fusion, reading the chunks back); the query's embedding call is not included (a local
 * function returns a vector), so a real embedding model's latency comes on top for vector and
 * hybrid.
 */
import { performance } from "node:perf_hooks";
import type { Caller } from "../../dataplane/core/identity.js";
import { percentile } from "../../dataplane/routing/routes/ab-statistics.js";
import { RagSearch } from "../../dataplane/rag/rag-search.js";
import type { SearchMode } from "../../dataplane/rag/rag-search-schemas.js";
import type { Database } from "../../dataplane/store/database.js";
import { migrate } from "../../dataplane/store/migrate.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";
import { openPostgres } from "../../dataplane/store/postgres-database.js";
import { RagSearchRepository } from "../../dataplane/store/rag-search-repository.js";
import { RagSeeder, type SeedCollection } from "../../test/support/rag-seed.js";
import { createFreshDatabase } from "../processes/fresh-database.js";
import { DIMS, random, STOP_WORDS, unit, VOCABULARY, word, zipf } from "./rag-corpus.js";
import type { Section, SectionContext, SectionReport } from "./section.js";

const CHUNKS_PER_DOCUMENT = 1_000;
const WORDS_PER_CHUNK = 80;

const caller: Caller = {
  customer: {
    id: "bench",
    name: "bench",
    tier: "enterprise",
    createdAt: new Date(),
    updatedAt: new Date(),
  },
  key: {
    id: "key_bench",
    customerId: "bench",
    name: "bench",
    role: "member",
    classificationFloor: "restricted",
    hint: "ev_sk_bench",
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  },
};

interface Row {
  store: string;
  vectorSearch: string;
  chunks: number;
  seedSeconds: number;
  p50: Record<SearchMode, number | null>;
  p95: Record<SearchMode, number | null>;
}

/** Seeds `target` chunks (continuing from `have`) through the RAG repositories. */
async function seedTo(
  seeder: RagSeeder,
  collection: SeedCollection,
  have: number,
  target: number,
): Promise<void> {
  const rand = random(have + 1);
  const rank = zipf(rand);
  for (let doc = have / CHUNKS_PER_DOCUMENT; doc < target / CHUNKS_PER_DOCUMENT; doc++) {
    const chunks = Array.from({ length: CHUNKS_PER_DOCUMENT }, () => ({
      text: Array.from({ length: WORDS_PER_CHUNK }, () => word(rank())).join(" "),
      tokenCount: WORDS_PER_CHUNK * 2,
      embedding: unit(rand),
    }));
    await seeder.document(collection, {
      id: `rdoc_bench_${doc}`,
      metadata: { part: doc % 10 },
      chunks,
    });
  }
}

async function measure(
  name: string,
  db: Database,
  sizes: number[],
  searches: number,
  log: SectionContext["log"],
): Promise<Row[]> {
  await migrate(db);
  const seeder = new RagSeeder(db, { indexFirst: false });
  const kind = name.includes("without") ? "exact_scan" : await seeder.chunks.prepareVectors();
  const collection: SeedCollection = {
    customerId: "bench",
    collectionId: "rcol_bench",
    embeddingModel: "bench-embed",
  };
  await seeder.collection(collection);
  const search = new RagSearch({
    collections: seeder.collections,
    search: new RagSearchRepository(db, () => kind),
    vectorSearch: () => kind,
  });
  const rand = random(7);
  const rank = zipf(rand);
  // Queries of three words drawn like the text (frequent words match many chunks).
  const queries = Array.from({ length: 50 }, () =>
    [rank(), rank(), rank()].map((r) => word(r)).join(" "),
  );
  const vectors = Array.from({ length: 50 }, () => unit(rand));
  const rows: Row[] = [];
  let have = 0;
  for (const size of sizes) {
    log(`rag: ${name}, seeding to ${size} chunks`);
    const t0 = performance.now();
    // Bulk load: the indexes are dropped and built once after the inserts (as one would for an
    // initial import); the definitions are migration 15's GIN index and the store's HNSW index.
    await db.exec("DROP INDEX IF EXISTS rag_chunks_tsv");
    await db.exec(`DROP INDEX IF EXISTS rag_chunks_hnsw_${DIMS}`);
    await seedTo(seeder, collection, have, size);
    have = size;
    await db.exec("CREATE INDEX rag_chunks_tsv ON rag_chunks USING gin (tsv)");
    if (kind === "pgvector_hnsw") {
      // A new repository: the dropped index is built again (the old one remembers it made it).
      const chunks = new RagSeeder(db).chunks;
      await chunks.prepareVectors();
      await chunks.prepareDimensions(vectors[0] as number[]);
    }
    await db.exec("ANALYZE rag_chunks");
    const seedSeconds = (performance.now() - t0) / 1000;
    const row: Row = {
      store: name,
      vectorSearch: kind,
      chunks: size,
      seedSeconds,
      p50: { keyword: null, vector: null, hybrid: null },
      p95: { keyword: null, vector: null, hybrid: null },
    };
    for (const mode of ["keyword", "vector", "hybrid"] as const) {
      const run = (i: number) =>
        search.search(
          caller,
          {
            collectionId: collection.collectionId,
            query: queries[i % queries.length] as string,
            mode,
            topK: 10,
            includeFlagged: true,
          },
          () => Promise.resolve(vectors[i % vectors.length] as number[]),
        );
      for (let i = 0; i < 2; i++) await run(i);
      // At most `searches` timed runs, fewer when they are slow (an exact scan of 100k vectors
      // takes seconds): stop after 20 s, with at least 5.
      const times: number[] = [];
      const started = performance.now();
      for (let i = 0; i < searches; i++) {
        if (i >= 5 && performance.now() - started > 20_000) break;
        const s0 = performance.now();
        await run(i);
        times.push(performance.now() - s0);
      }
      times.sort((a, b) => a - b);
      row.p50[mode] = percentile(times, 0.5);
      row.p95[mode] = percentile(times, 0.95);
      log(
        `rag: ${name} ${size} ${mode} p50 ${row.p50[mode]?.toFixed(1)} ms, p95 ${row.p95[mode]?.toFixed(1)} ms, ${times.length} runs`,
      );
    }
    rows.push(row);
  }
  return rows;
}

const ms = (v: number | null) => (v === null ? "-" : v.toFixed(2));
const NAME = "RAG search (keyword BM25, vector, hybrid RRF) at 10k and 100k chunks";

export function ragSectionFor(sizes: number[], searches = 40): Section {
  return { name: NAME, run: (context) => runRagSection(context, sizes, searches) };
}

export const ragSection = ragSectionFor([10_000, 100_000]);

async function runRagSection(
  { options, log }: SectionContext,
  sizes: number[],
  searches: number,
): Promise<SectionReport> {
  const stores: [string, () => Promise<Database>][] = [];
  let dropPostgres: (() => Promise<void>) | undefined;
  if (options.postgresUrl) {
    const server = options.postgresUrl;
    stores.push([
      "postgres",
      async () => {
        const fresh = await createFreshDatabase(server, "evident_bench_rag");
        dropPostgres = fresh.drop;
        return openPostgres({ connectionString: fresh.url });
      },
    ]);
  }
  stores.push(
    ["pglite + pgvector", () => openPglite(undefined)],
    ["pglite without pgvector", () => openPglite(undefined, { vector: false })],
  );
  const rows: Row[] = [];
  for (const [name, open] of stores) {
    const db = await open();
    try {
      rows.push(...(await measure(name, db, sizes, searches, log)));
    } finally {
      await db.close();
      if (name === "postgres") await dropPostgres?.();
    }
  }
  const at = (store: string, chunks: number) =>
    rows.find((r) => r.store === store && r.chunks === chunks);
  const big = sizes.at(-1) ?? 0;
  const small = sizes[0] ?? 0;
  const growth = (store: string, mode: SearchMode) => {
    const a = at(store, small)?.p50[mode];
    const b = at(store, big)?.p50[mode];
    return a && b ? b / a : null;
  };
  return {
    name: NAME,
    table: [
      [
        "store",
        "vector search",
        "chunks",
        "seed s",
        "keyword p50/p95 ms",
        "vector p50/p95 ms",
        "hybrid p50/p95 ms",
      ],
      ...rows.map((r) => [
        r.store,
        r.vectorSearch,
        String(r.chunks),
        r.seedSeconds.toFixed(0),
        `${ms(r.p50.keyword)} / ${ms(r.p95.keyword)}`,
        `${ms(r.p50.vector)} / ${ms(r.p95.vector)}`,
        `${ms(r.p50.hybrid)} / ${ms(r.p95.hybrid)}`,
      ]),
    ],
    ratios: {
      keyword_100k_over_10k_pglite: growth("pglite + pgvector", "keyword"),
      vector_hnsw_100k_over_10k: growth("pglite + pgvector", "vector"),
      vector_exact_100k_over_10k_pglite: growth("pglite without pgvector", "vector"),
      vector_exact_100k_over_10k_postgres: growth("postgres", "vector"),
    },
    targets: [],
    notes: [
      `${DIMS}-dimension vectors; ${WORDS_PER_CHUNK} words per chunk from a ${VOCABULARY}-word Zipf vocabulary whose ${STOP_WORDS.length} most frequent words are English stop words; ${CHUNKS_PER_DOCUMENT} chunks per document, one collection of one customer`,
      "queries: three words drawn from the same distribution (frequent words match many chunks: BM25 scores every matching chunk); top_k 10; hybrid takes 50 from each list",
      "the query's embedding call is not timed (vector and hybrid add one model call in the API)",
      "seed s: seconds to insert the chunks through the RAG repositories (200 rows per INSERT) with the GIN and HNSW indexes dropped, then build them",
    ],
    data: { rows },
  };
}
