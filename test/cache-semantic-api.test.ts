import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call } from "./support/test-app.js";
import {
  cacheBackends as backends,
  cacheGateway as gateway,
  eventually,
} from "./support/cache-gateway.js";

let up: FakeUpstream;
let upEmbed: FakeUpstream;
test.before(async () => {
  up = await startFakeUpstream();
  upEmbed = await startFakeUpstream();
});
test.after.always(async () => {
  await up?.close();
  await upEmbed?.close();
});

for (const backend of backends) {
  test.serial(
    `semantic cache on ${backend}: the embedding is a metered, audited call of the caller; near prompts hit`,
    async (t) => {
      // One call at a time: the embedding call runs inside the chat call's concurrency slot.
      const { gw, close } = await gateway(backend, { CUSTOMER_CONCURRENCY: "pro=1" });
      try {
        await deployModel(gw.url, gw.adminKey, { name: "sm-chat" }, up.url);
        await deployModel(
          gw.url,
          gw.adminKey,
          { name: "sm-embed", modality: "embedding" },
          upEmbed.url,
        );
        const key = await customerKey(gw.url, gw.adminKey, "pro");
        const set = await call(gw.url, "PATCH", "/api/v1/cache/config", key, {
          enabled: true,
          mode: "semantic",
          embedding_model: "sm-embed",
          similarity_threshold: 0.95,
        });
        t.is(set.status, 200, JSON.stringify(set.json));
        const stats = await call(gw.url, "GET", "/api/v1/cache/stats", key);
        t.is(stats.json.semantic_search, backend === "postgres" ? "exact_scan" : "pgvector_hnsw");
        const embedFrom = upEmbed.requests.length;
        const vector = (v: number[]) => ({
          json: {
            object: "list",
            data: [{ embedding: v }],
            usage: { prompt_tokens: 7, total_tokens: 7 },
          },
        });
        upEmbed.script
          .next(vector([1, 0, 0]))
          .next(vector([0.99, 0.05, 0]))
          .next(vector([0, 1, 0]));
        const chat = (content: string) =>
          call(gw.url, "POST", "/v1/chat/completions", key, {
            model: "sm-chat",
            messages: [{ role: "user", content }],
          });
        const remaining = (r: { headers: Headers }) =>
          Number(r.headers.get("x-ratelimit-remaining-requests"));
        const a = await chat("What is the capital of France?");
        t.is(a.headers.get("x-evident-cache"), "miss");
        t.true(
          await eventually(async () => {
            const e = await call(gw.url, "GET", "/api/v1/cache/entries", key);
            return (e.json.data as { semantic: boolean }[])[0]?.semantic === true;
          }),
        );
        const b = await chat("Tell me France's capital city");
        t.is(b.headers.get("x-evident-cache"), "hit");
        const c = await chat("Something else entirely");
        t.is(c.headers.get("x-evident-cache"), "miss");
        // Counted: each chat call and its embedding call took a request of the customer's limit.
        t.is(remaining(b) - remaining(c), 2, "the embedding call counts as a request");
        t.is(upEmbed.requests.length - embedFrom, 3);
        t.is(
          (upEmbed.requests[embedFrom]?.body as { input: string }).input,
          "What is the capital of France?",
        );

        // Audited: one record per embedding call, naming the chat call whose lookup it served.
        type Rec = {
          request_id: string;
          model: string;
          outcome: string;
          usage: { total_tokens: number } | null;
          details: Record<string, Record<string, unknown>> | null;
        };
        const records = (
          await call(gw.url, "GET", "/api/v1/audit/records?model=sm-embed&limit=10", key)
        ).json.data as Rec[];
        t.is(records.length, 3);
        const served = records.map((r) => r.details?.cache_embedding?.for_request_id).sort();
        const chats = [a, b, c].map((r) => r.headers.get("x-request-id")).sort();
        t.deepEqual(served, chats);
        t.true(records.every((r) => r.outcome === "completed" && r.usage?.total_tokens === 7));
        const hitRecord = (
          await call(
            gw.url,
            "GET",
            `/api/v1/audit/records?request_id=${b.headers.get("x-request-id")}`,
            key,
          )
        ).json.data as Rec[];
        const embedOfB = records.find(
          (r) => r.details?.cache_embedding?.for_request_id === b.headers.get("x-request-id"),
        );
        t.is(hitRecord[0]?.outcome, "served_from_cache");
        t.is(hitRecord[0]?.details?.cache?.kind, "semantic");
        t.is(hitRecord[0]?.details?.cache?.embedding_request_id, embedOfB?.request_id);

        // A failing embedding model makes the lookup exact-only; the call still succeeds.
        upEmbed.script.next({ status: 500, json: { error: { message: "down" } } });
        const d = await chat("Tell me France's capital, please");
        t.is(d.status, 200);
        t.is(d.headers.get("x-evident-cache"), "miss");
        t.true(
          await eventually(async () => {
            const s = await call(gw.url, "GET", "/api/v1/cache/stats", key);
            return (s.json.totals as { semantic_hits: number }).semantic_hits === 1;
          }),
        );
        const totals = (await call(gw.url, "GET", "/api/v1/cache/stats", key)).json
          .totals as Record<string, number>;
        t.is(totals.embedding_calls, 4, "three answered and one failed embedding call");
      } finally {
        await close();
      }
    },
  );
}
