/**
 * Retrieval quality of RAG keyword search (BM25 in SQL) on the shipped SQuAD v1.1 subset
 * (eval/rag/README.md): indexes every paragraph as a document of one collection through the RAG
 * repositories, runs every question through the same search service the API uses (mode keyword),
 * ranks documents by their best chunk and prints nDCG@10, Recall@10 and MRR@10.
 *
 * Run: npm run eval:rag   (EVAL_RAG_DATABASE_URL=postgres://... to measure on real Postgres;
 * default: an in-memory PGlite)
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Caller } from "../dataplane/core/identity.js";
import { RagSearch } from "../dataplane/rag/rag-search.js";
import type { Database } from "../dataplane/store/database.js";
import { migrate } from "../dataplane/store/migrate.js";
import { openPglite } from "../dataplane/store/pglite-database.js";
import { openPostgres } from "../dataplane/store/postgres-database.js";
import { RagSearchRepository } from "../dataplane/store/rag-search-repository.js";
import { RagSeeder } from "../test/support/rag-seed.js";
import { mean, mrrAt, ndcgAt, recallAt } from "./eval/retrieval-metrics.js";

const K = 10;
const here = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(here, "../eval/rag/squad-v1.1-dev-subset.jsonl");

interface Paragraph {
  window: number;
  title: string;
  context: string;
  qas: { id: string; question: string }[];
}

export interface EvalSet {
  documents: { id: string; title: string; text: string }[];
  queries: { id: string; text: string; relevant: string }[];
}

export function loadEvalSet(path = DATA): EvalSet {
  const paragraphs = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Paragraph);
  const documents = paragraphs.map((p, i) => ({
    id: `squad-${i}`,
    title: p.title,
    text: p.context,
  }));
  const queries = paragraphs.flatMap((p, i) =>
    p.qas.map((q) => ({ id: q.id, text: q.question, relevant: `squad-${i}` })),
  );
  return { documents, queries };
}

const caller: Caller = {
  customer: {
    id: "eval",
    name: "eval",
    tier: "enterprise",
    createdAt: new Date(),
    updatedAt: new Date(),
  },
  key: {
    id: "key_eval",
    customerId: "eval",
    name: "eval",
    role: "member",
    classificationFloor: "restricted",
    hint: "ev_sk_eval",
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  },
};

async function open(): Promise<Database> {
  const url = process.env["EVAL_RAG_DATABASE_URL"];
  return url ? openPostgres({ connectionString: url, max: 4 }) : openPglite(undefined);
}

async function main(): Promise<void> {
  const set = loadEvalSet();
  const db = await open();
  try {
    await migrate(db);
    await db.exec("DELETE FROM rag_collections WHERE customer_id = 'eval'");
    const seeder = new RagSeeder(db);
    const collection = { customerId: "eval", collectionId: "rcol_eval_squad" };
    await seeder.collection(collection);
    for (const d of set.documents) {
      await seeder.document(collection, {
        id: d.id,
        filename: `${d.title}.txt`,
        metadata: { title: d.title },
        chunks: [{ text: d.text }],
      });
    }
    const search = new RagSearch({
      collections: seeder.collections,
      search: new RagSearchRepository(db, () => "exact_scan"),
      vectorSearch: () => "exact_scan",
    });
    const noEmbedding = () =>
      Promise.reject(new Error("keyword evaluation makes no embedding call"));
    const ndcg: number[] = [];
    const recall: number[] = [];
    const mrr: number[] = [];
    const times: number[] = [];
    for (const q of set.queries) {
      const t0 = performance.now();
      const outcome = await search.search(
        caller,
        {
          collectionId: collection.collectionId,
          query: q.text,
          mode: "keyword",
          topK: 3 * K,
          includeFlagged: true,
        },
        noEmbedding,
      );
      times.push(performance.now() - t0);
      const ranked = [...new Set(outcome.hits.map((h) => h.chunk.documentId))];
      const judged = new Map([[q.relevant, 1]]);
      ndcg.push(ndcgAt(K, ranked, judged));
      recall.push(recallAt(K, ranked, judged));
      mrr.push(mrrAt(K, ranked, judged));
    }
    times.sort((a, b) => a - b);
    const f = (x: number) => x.toFixed(3);
    console.log(`RAG keyword search (BM25) on ${db.kind}: SQuAD v1.1 dev subset`);
    console.log(`documents ${set.documents.length}, queries ${set.queries.length}`);
    console.log(`nDCG@${K}   ${f(mean(ndcg))}`);
    console.log(`Recall@${K} ${f(mean(recall))}`);
    console.log(`MRR@${K}    ${f(mean(mrr))}`);
    console.log(
      `search time per query: median ${times[times.length >> 1]!.toFixed(2)} ms (informational)`,
    );
  } finally {
    await db.exec("DELETE FROM rag_collections WHERE customer_id = 'eval'").catch(() => undefined);
    await db.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
