import test from "ava";
import { storeBackends } from "../../test/support/databases.js";
import { unitVector } from "../cache/embedder.js";
import type { RagChunk } from "../rag/rag-types.js";
import { migrate } from "./migrate.js";
import { RagChunkRepository } from "./rag-chunk-repository.js";
import { RagCollectionRepository } from "./rag-collection-repository.js";
import { RagDocumentRepository } from "./rag-document-repository.js";

const now = new Date("2026-11-23T12:00:00Z");
const later = new Date(now.getTime() + 60_000);

function chunk(customerId: string, collectionId: string, documentId: string, i: number): RagChunk {
  return {
    id: `${documentId}-c${i}`,
    customerId,
    collectionId,
    documentId,
    position: i,
    text: i === 0 ? "Refunds are issued within thirty days." : "Shipping takes five working days.",
    heading: i === 0 ? "Refund policy" : null,
    page: i + 1,
    tokenCount: 8,
    injection: false,
    injectionScore: 0.01,
    piiRedactions: 0,
    piiEntities: [],
    embedding: unitVector([1, i, 0]),
  };
}

for (const backend of storeBackends()) {
  test(`rag store on ${backend.name}: upload, dedupe, cap, claim, complete, isolation, cascade`, async (t) => {
    const store = await backend.open();
    try {
      await migrate(store.db);
      const collections = new RagCollectionRepository(store.db);
      const documents = new RagDocumentRepository(store.db);
      const chunks = new RagChunkRepository(store.db);
      await chunks.prepareVectors();
      const base = {
        description: null,
        classification: "internal" as const,
        embeddingModel: "embed",
        chunkSizeTokens: 400,
        chunkOverlapTokens: 50,
        metadata: { team: "support" },
      };
      const col = await collections.create(
        { ...base, id: "col_a", customerId: "alice", name: "kb" },
        now,
      );
      t.truthy(col);
      t.is(
        await collections.create({ ...base, id: "col_dup", customerId: "alice", name: "kb" }, now),
        undefined,
        "a customer's collection names are unique",
      );
      t.truthy(
        await collections.create({ ...base, id: "col_b", customerId: "bob", name: "kb" }, now),
      );

      const doc = {
        id: "doc_1",
        customerId: "alice",
        collectionId: "col_a",
        keyId: "key_a",
        filename: "policy.md",
        contentType: "text/markdown",
        contentHash: "h1",
        bytes: 100,
        metadata: { lang: "en" },
      };
      const first = await documents.upload(doc, Buffer.from("# Refund policy"), 150, now);
      t.is(first.kind, "created");
      const again = await documents.upload({ ...doc, id: "doc_2" }, Buffer.from("x"), 150, now);
      t.is(again.kind, "existing", "the same bytes in the same collection are one document");
      const over = await documents.upload(
        { ...doc, id: "doc_3", contentHash: "h2" },
        Buffer.from("y"),
        150,
        now,
      );
      t.deepEqual(over, { kind: "over_cap", usedBytes: 100 });

      const claimed = await documents.claim("w1", now, later);
      t.is(claimed?.id, "doc_1");
      t.is(claimed?.status, "processing");
      t.is(await documents.claim("w2", now, later), undefined, "a held lease is not taken");
      const lapsed = new Date(later.getTime() + 1);
      const takeover = await documents.claim("w2", lapsed, new Date(lapsed.getTime() + 60_000));
      t.is(takeover?.id, "doc_1", "a dead worker's lapsed lease is taken over");
      t.is(takeover?.attempts, 2);
      t.false(await documents.renew("doc_1", "w1", later), "the old owner has lost it");
      t.true(await documents.renew("doc_1", "w2", new Date(lapsed.getTime() + 120_000)));
      t.true(
        await documents.retryLater(
          "doc_1",
          "w2",
          { code: "upstream_unavailable", message: "x" },
          now,
        ),
      );
      t.is(
        (await documents.claim("w1", lapsed, later))?.attempts,
        3,
        "queued again, claimed again",
      );
      t.is((await documents.source("doc_1"))?.toString(), "# Refund policy");
      const written = [chunk("alice", "col_a", "doc_1", 0), chunk("alice", "col_a", "doc_1", 1)];
      await chunks.prepareDimensions(written[0]!.embedding!);
      t.false(
        await documents.complete(
          "doc_1",
          "w2",
          {
            chunks: written,
            pageCount: 2,
            tokenCount: 16,
            piiRedactions: 0,
            injectionChunks: 0,
          },
          now,
        ),
        "only the lease holder completes",
      );
      t.true(
        await documents.complete(
          "doc_1",
          "w1",
          {
            chunks: written,
            pageCount: 2,
            tokenCount: 16,
            piiRedactions: 0,
            injectionChunks: 0,
          },
          now,
        ),
      );
      const ready = await documents.get("alice", "doc_1");
      t.is(ready?.status, "ready");
      t.is(ready?.chunkCount, 2);
      t.is(await documents.source("doc_1"), undefined, "uploaded bytes are dropped once ready");
      const listed = await chunks.listForDocument("alice", "doc_1", { limit: 10, offset: 0 });
      t.deepEqual(
        listed.map((c) => [c.position, c.heading, c.page]),
        [
          [0, "Refund policy", 1],
          [1, null, 2],
        ],
      );
      const byId = await chunks.byIds("alice", ["doc_1-c0"]);
      t.is(byId[0]?.embedding?.length, 3);

      // Keyword column: the heading and text are searchable with Postgres full text.
      const hits = await store.db.query<{ id: string }>(
        `SELECT id FROM rag_chunks WHERE customer_id = $1 AND tsv @@ websearch_to_tsquery('english', $2)`,
        ["alice", "refund"],
      );
      t.deepEqual(
        hits.map((h) => h.id),
        ["doc_1-c0"],
      );

      // Another customer sees nothing of alice's.
      t.is(await collections.get("bob", "col_a"), undefined);
      t.is(await documents.get("bob", "doc_1"), undefined);
      t.deepEqual(await chunks.listForDocument("bob", "doc_1", { limit: 10, offset: 0 }), []);
      t.deepEqual(await chunks.byIds("bob", ["doc_1-c0"]), []);
      t.false(await documents.delete("bob", "doc_1"));
      t.false(await collections.delete("bob", "col_a"));
      t.is((await documents.usage("bob")).bytes, 0);
      t.deepEqual(await documents.usage("alice"), {
        collections: 1,
        documents: 1,
        chunks: 2,
        bytes: 100,
      });

      t.true(await collections.delete("alice", "col_a"));
      t.is(
        await documents.get("alice", "doc_1"),
        undefined,
        "deleting a collection deletes its documents",
      );
      const [left] = await store.db.query<{ n: number | string }>(
        "SELECT count(*) AS n FROM rag_chunks WHERE customer_id = 'alice'",
      );
      t.is(Number(left?.n), 0, "and their chunks");
    } finally {
      await store.drop();
    }
  });
}
