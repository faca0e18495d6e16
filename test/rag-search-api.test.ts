import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { POSTGRES_URL } from "./support/databases.js";
import { seededGateway, TEXTS, type Hit } from "./support/rag-search-fixture.js";
import { call, errorOf } from "./support/test-app.js";

/**
 * RAG search through the HTTP API, with the fake OpenAI upstream (a test double) as the embedding
 * model (test/support/rag-search-fixture.ts seeds the chunks).
 */
let chat: FakeUpstream;
let embed: FakeUpstream;
test.before(async () => {
  chat = await startFakeUpstream();
  embed = await startFakeUpstream();
});
test.after.always(async () => {
  await chat?.close();
  await embed?.close();
});

const backends = ["pglite", ...(POSTGRES_URL ? ["postgres"] : [])] as const;

for (const backend of backends) {
  test.serial(
    `rag search on ${backend}: three modes, filters, isolation, classification`,
    async (t) => {
      const { gw, alice, bob, close } = await seededGateway(backend, {
        chat: chat.url,
        embed: embed.url,
      });
      try {
        const search = (body: Record<string, unknown>, key = alice.key) =>
          call(gw.url, "POST", "/v1/rag/search", key, { collection_id: "rcol_alice_kb", ...body });
        const ids = (r: { json: Record<string, unknown> }) =>
          (r.json.data as Hit[]).map((h) => h.chunk_id);

        const keyword = await search({ query: "How are refunds issued?", mode: "keyword" });
        t.is(keyword.status, 200, JSON.stringify(keyword.json));
        t.like(keyword.json, {
          object: "rag.search",
          mode: "keyword",
          ranking: { keyword: "bm25" },
        });
        const first = (keyword.json.data as Hit[])[0]!;
        t.like(first, {
          chunk_id: "rdoc_policy-0",
          document_id: "rdoc_policy",
          position: 0,
          heading: "Refund policy",
          page: 2,
          injection: false,
          vector: null,
        });
        t.is(ids(keyword).length, 4, "every chunk mentioning refunds, none of bob's");
        const flagged = (keyword.json.data as Hit[]).find((h) => h.chunk_id === "rdoc_travel-1");
        t.true(flagged?.injection, "a chunk flagged at ingestion is marked in the results");
        const embedCalls = embed.requests.length;

        const vector = await search({ query: TEXTS.travel, mode: "vector", top_k: 2 });
        t.is(vector.status, 200, JSON.stringify(vector.json));
        t.is(ids(vector)[0], "rdoc_travel-0", "the chunk whose vector equals the query's");
        t.true(Math.abs((vector.json.data as Hit[])[0]!.score - 1) < 1e-4);
        t.is(ids(vector).length, 2);
        t.is(embed.requests.length, embedCalls + 1, "one embedding call for the query");
        t.like(embed.requests.at(-1)?.body, { input: TEXTS.travel });
        t.is(
          (vector.json.ranking as { vector: string }).vector,
          backend === "pglite" ? "pgvector_hnsw" : "exact_scan",
        );

        const hybrid = await search({ query: TEXTS.shipping });
        t.is(hybrid.status, 200);
        t.is(hybrid.json.mode, "hybrid", "the default with an embedding model");
        const top = (hybrid.json.data as Hit[])[0]!;
        t.is(top.chunk_id, "rdoc_policy-1");
        t.deepEqual([top.keyword?.rank, top.vector?.rank], [1, 1], "first in both lists");
        t.like(hybrid.json.ranking, { fusion: "rrf", rrf_k: 60 });

        const byLang = ids(
          await search({ query: "refunds", mode: "keyword", filter: { metadata: { lang: "de" } } }),
        );
        t.deepEqual([...byLang].sort(), ["rdoc_travel-0", "rdoc_travel-1"]);
        t.deepEqual(
          ids(
            await search({
              query: "refunds",
              mode: "keyword",
              filter: { metadata: { team: ["hr", "billing"] }, document_ids: ["rdoc_policy"] },
            }),
          ).sort(),
          ["rdoc_policy-0", "rdoc_policy-1"],
        );
        t.false(
          ids(await search({ query: "refunds", mode: "keyword", include_flagged: false })).includes(
            "rdoc_travel-1",
          ),
        );

        // Isolation: bob cannot reach alice's collection, by id or by content.
        const bobSearch = await search({ query: "refunds" }, bob.key);
        t.is(bobSearch.status, 404);
        t.is(errorOf(bobSearch.json).code, "resource_not_found");
        const bobOwn = await call(gw.url, "POST", "/v1/rag/search", bob.key, {
          collection_id: "rcol_bob_kb",
          query: TEXTS.refund,
        });
        t.is(bobOwn.status, 200);
        t.deepEqual(ids(bobOwn), ["rdoc_bob-0"], "bob's own chunk only");

        // Classification: an internal key cannot search a confidential collection.
        const restricted = await search({ collection_id: "rcol_alice_board", query: "merger" });
        t.is(restricted.status, 403);
        t.is(errorOf(restricted.json).code, "classification_restricted");
        t.truthy(restricted.headers.get("x-request-id"));

        // Bad input answers the envelope, never a 500.
        for (const bad of [
          { query: "" },
          { query: "x", mode: "semantic" },
          { query: "x", top_k: 0 },
          { query: "x", filter: { metadata: { lang: { $ne: "en" } } } },
          { query: "x", unexpected: true },
          { query: "nul \u0000 byte" },
        ]) {
          const r = await search(bad);
          t.is(r.status, 422, JSON.stringify(bad));
          t.is(errorOf(r.json).type, "validation_error");
        }
        t.is((await search({ collection_id: "no/such", query: "x" })).status, 422);
        t.is((await search({ collection_id: "rcol_missing", query: "x" })).status, 404);
        t.is((await call(gw.url, "POST", "/v1/rag/search", undefined, { query: "x" })).status, 401);
      } finally {
        await close();
      }
    },
  );
}
