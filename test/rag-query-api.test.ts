import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { deployModel } from "./support/inference-fixture.js";
import {
  customer,
  ragRecords,
  seededGateway,
  TEXTS,
  type Hit,
  type Source,
} from "./support/rag-search-fixture.js";
import { call, errorOf, startTestApp } from "./support/test-app.js";

/**
 * RAG query (grounded answers) through the HTTP API, with fake OpenAI upstreams (test doubles) as
 * the chat and embedding models; and search and query over documents ingested through the API.
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
    `rag query on ${backend}: citations in JSON and stream, flagged chunks, audit`,
    async (t) => {
      const { gw, alice, close } = await seededGateway(backend, {
        chat: chat.url,
        embed: embed.url,
      });
      try {
        const query = (body: Record<string, unknown>, key = alice.key) =>
          call(gw.url, "POST", "/v1/rag/query", key, {
            collection_id: "rcol_alice_kb",
            model: "rag-chat",
            ...body,
          });
        const lastPrompt = () => {
          const body = chat.requests.at(-1)?.body as {
            messages: { role: string; content: string }[];
          };
          return body.messages;
        };

        chat.script.next({
          chunks: ["Refunds go back to the original card ", "within thirty days [1][3]."],
        });
        const question = "reveal the refund approval codes";
        const answered = await query({ query: question, mode: "keyword", top_k: 3 });
        t.is(answered.status, 200, JSON.stringify(answered.json));
        t.like(answered.json, {
          object: "rag.query",
          model: "rag-chat",
          collection_id: "rcol_alice_kb",
          mode: "keyword",
          answer: "Refunds go back to the original card within thirty days [1][3].",
          citations: [1, 3],
          excluded_flagged: 1,
        });
        const sources = answered.json.sources as Source[];
        t.deepEqual(
          sources.map((s) => [s.number, s.chunk_id, s.cited]),
          [
            [1, "rdoc_policy-0", true],
            [2, "rdoc_policy-1", false],
            [3, "rdoc_travel-0", true],
          ],
          "the flagged chunk ranked first and was left out; the next three were given",
        );
        t.is(sources[0]?.heading, "Refund policy");
        const [system, user] = lastPrompt();
        t.regex(system!.content, /from the numbered sources/);
        t.regex(user!.content, /\[1\] \(document: policy\.md; section: Refund policy; page 2\)\n/);
        t.true(
          user!.content.includes(TEXTS.refund) && user!.content.endsWith(`Question: ${question}`),
        );
        t.false(
          user!.content.includes(TEXTS.injected),
          "the chunk flagged as injection is not given to the model by default",
        );
        t.true((answered.json.usage as { total_tokens: number }).total_tokens > 0);

        // The audit record of the answer names the collection and the chunks given to the model.
        const records = await ragRecords(gw, alice.key, 1);
        const answerRecord = records.find((r) => r.details?.rag?.purpose === "query_answer");
        t.deepEqual(answerRecord?.details?.rag, {
          collection_id: "rcol_alice_kb",
          purpose: "query_answer",
          chunk_ids: sources.map((s) => s.chunk_id),
        });
        t.is(answerRecord?.action, "chat.completions");

        // Opting in gives the flagged chunk to the model's request, where the request guardrails
        // see it: the default policy refuses the call; with injection blocking off, it goes through.
        const optIn = () => query({ query: question, mode: "keyword", include_flagged: true });
        const refused = await optIn();
        t.is(refused.status, 400, JSON.stringify(refused.json));
        t.is(errorOf(refused.json).code, "prompt_injection_detected");
        const policy = await call(gw.url, "PATCH", "/api/v1/guardrails/policy", alice.key, {
          injection: { enabled: false },
        });
        t.is(policy.status, 200, JSON.stringify(policy.json));
        const given = await optIn();
        t.is(given.status, 200, JSON.stringify(given.json));
        t.is(given.json.excluded_flagged, 0);
        t.like((given.json.sources as Source[])[0], { chunk_id: "rdoc_travel-1", injection: true });
        t.true(lastPrompt()[1]!.content.includes(TEXTS.injected));

        // Streamed: the sources event first, then the model's chunks, then [DONE].
        chat.script.next({ chunks: ["Five working days ", "[1]."] });
        const res = await fetch(`${gw.url}/v1/rag/query`, {
          method: "POST",
          headers: { authorization: `Bearer ${alice.key}`, "content-type": "application/json" },
          body: JSON.stringify({
            collection_id: "rcol_alice_kb",
            model: "rag-chat",
            query: TEXTS.shipping,
            stream: true,
          }),
        });
        t.is(res.status, 200);
        t.regex(res.headers.get("content-type") ?? "", /text\/event-stream/);
        const events = (await res.text()).split("\n\n").filter((e) => e.startsWith("data: "));
        const firstEvent = JSON.parse(events[0]!.slice(6)) as {
          object: string;
          mode: string;
          sources: Source[];
        };
        t.is(firstEvent.object, "rag.query.sources");
        t.is(firstEvent.mode, "hybrid");
        t.is(firstEvent.sources[0]?.chunk_id, "rdoc_policy-1");
        t.false("cited" in firstEvent.sources[0]!, "what is cited is known only at the end");
        const text = events
          .slice(1)
          .filter((e) => e.startsWith("data: {"))
          .map((e) => JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] })
          .map((e) => e.choices[0]?.delta?.content ?? "")
          .join("");
        t.is(text, "Five working days [1].");
        t.is(events.at(-1), "data: [DONE]");
        t.like(
          embed.requests.at(-1)?.body,
          { input: TEXTS.shipping },
          "hybrid embedded the question",
        );

        // Classification, isolation and bad input on query too.
        const board = await query({ collection_id: "rcol_alice_board", query: "merger" });
        t.is(board.status, 403);
        t.is(errorOf(board.json).code, "classification_restricted");
        t.is((await query({ query: "x", model: "" })).status, 422);
        t.is((await query({ query: "x", stream: "yes" })).status, 422);
        t.is((await query({ query: "x", max_context_tokens: 10 })).status, 422);
        const unknownModel = await query({
          query: "refunds",
          mode: "keyword",
          model: "no-such-model",
        });
        t.is(unknownModel.status, 404);
        t.is(errorOf(unknownModel.json).code, "model_not_found");
      } finally {
        await close();
      }
    },
  );
}

for (const backend of backends) {
  test.serial(
    `rag search and query on ${backend} over documents ingested through the API`,
    async (t) => {
      const fresh = backend === "postgres" ? await freshPostgresUrl() : undefined;
      const gw = await startTestApp({
        env: { RAG_SYNC_INGEST_BYTES: "100000", ...(fresh ? { DATABASE_URL: fresh.url } : {}) },
      });
      try {
        await deployModel(gw.url, gw.adminKey, { name: "rag-chat" }, chat.url);
        await deployModel(
          gw.url,
          gw.adminKey,
          { name: "rag-embed", modality: "embedding" },
          embed.url,
        );
        const alice = await customer(gw, "internal");
        const bob = await customer(gw, "internal");
        const api = (method: string, path: string, body?: unknown, key = alice.key) =>
          call(gw.url, method, path, key, body);
        const col = await api("POST", "/api/v1/rag/collections", {
          name: "handbook",
          embedding_model: "rag-embed",
        });
        t.is(col.status, 201, JSON.stringify(col.json));
        const collectionId = col.json.id as string;
        const doc = await api("POST", `/api/v1/rag/collections/${collectionId}/documents`, {
          filename: "handbook.md",
          content_type: "text/markdown",
          content:
            "# Refunds\nRefunds are paid to the original card within thirty days.\n\n# Shipping\nParcels ship within five working days from the Leeds warehouse.",
          metadata: { lang: "en" },
        });
        t.is(doc.status, 201, JSON.stringify(doc.json));
        t.is(doc.json.status, "ready");

        const keyword = await api("POST", "/v1/rag/search", {
          collection_id: collectionId,
          query: "Which warehouse ships parcels?",
          mode: "keyword",
        });
        t.is(keyword.status, 200, JSON.stringify(keyword.json));
        const top = (keyword.json.data as Hit[])[0]!;
        t.is(top.heading, "Shipping");
        t.is(top.document_id, doc.json.id as string);
        t.regex((keyword.json.data as { text: string }[])[0]!.text, /Leeds warehouse/);

        const hybrid = await api("POST", "/v1/rag/search", {
          collection_id: collectionId,
          query: "refund card",
          filter: { metadata: { lang: "en" } },
        });
        t.is(hybrid.status, 200, JSON.stringify(hybrid.json));
        t.is(hybrid.json.mode, "hybrid");
        t.true(
          (hybrid.json.data as Hit[]).every((h) => h.vector !== null),
          "every chunk has a vector",
        );
        t.is((hybrid.json.data as Hit[])[0]?.heading, "Refunds");

        chat.script.next({ chunks: ["From Leeds [1]."] });
        const answer = await api("POST", "/v1/rag/query", {
          collection_id: collectionId,
          model: "rag-chat",
          query: "Which warehouse ships parcels?",
          mode: "keyword",
        });
        t.is(answer.status, 200, JSON.stringify(answer.json));
        t.deepEqual(answer.json.citations, [1]);
        t.like((answer.json.sources as Source[])[0], { heading: "Shipping", cited: true });

        const stranger = await api(
          "POST",
          "/v1/rag/search",
          { collection_id: collectionId, query: "refund" },
          bob.key,
        );
        t.is(stranger.status, 404, "another customer's collection does not exist for bob");
      } finally {
        await gw.close();
        await fresh?.drop();
      }
    },
  );
}
