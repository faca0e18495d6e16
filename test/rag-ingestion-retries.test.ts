import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { ragGateway as gateway } from "./support/rag-app.js";
import { call } from "./support/test-app.js";

/** RAG ingestion when the embedding model fails or the key is rate limited. */

let up: FakeUpstream;
test.before(async () => {
  up = await startFakeUpstream();
});
test.after.always(async () => {
  await up?.close();
});

test.serial(
  "rag ingestion retries after an embedding outage and fails only after the last attempt",
  async (t) => {
    const down = await startFakeUpstream();
    const { gw, clock, close } = await gateway("pglite", {
      RAG_POLL_MS: "20",
      UPSTREAM_RETRIES: "0",
    });
    try {
      down.script.setDefault({ status: 500 });
      await deployModel(gw.url, gw.adminKey, { name: "emb-down", modality: "embedding" }, down.url);
      const key = await customerKey(gw.url, gw.adminKey, "pro");
      const api = (method: string, path: string, body?: unknown) =>
        call(gw.url, method, path, key, body);
      const col = await api("POST", "/api/v1/rag/collections", {
        name: "c",
        embedding_model: "emb-down",
      });
      const up1 = await api("POST", `/api/v1/rag/collections/${col.json.id as string}/documents`, {
        content: "Refunds are issued within thirty days of purchase.",
      });
      t.is(up1.status, 202, "an upstream outage queues the document again");
      t.is(up1.json.status, "queued");
      t.is((up1.json.error as { code: string }).code, "upstream_unavailable");
      t.is(up1.json.attempts, 1);
      const doc = () => api("GET", `/api/v1/rag/documents/${up1.json.id as string}`);

      // The model is back: the next attempt (after the backoff) succeeds.
      down.script.setDefault({});
      clock.advance(5_001);
      let status = "";
      for (let i = 0; i < 200 && status !== "ready"; i++) {
        await new Promise((r) => setTimeout(r, 25));
        status = (await doc()).json.status as string;
      }
      t.is(status, "ready");
      const ready = await doc();
      t.is(ready.json.attempts, 2);
      t.is(ready.json.error, null);

      // An outage that outlasts every attempt fails the document, saying why.
      down.script.setDefault({ status: 500 });
      const up2 = await api("POST", `/api/v1/rag/collections/${col.json.id as string}/documents`, {
        content: "Shipping takes five working days.",
      });
      let last = up2.json;
      for (let i = 0; i < 400 && last.status !== "failed"; i++) {
        clock.advance(120_000);
        await new Promise((r) => setTimeout(r, 25));
        last = (await api("GET", `/api/v1/rag/documents/${up2.json.id as string}`)).json;
      }
      t.is(last.status, "failed");
      t.is(last.attempts, 5);
      t.is((last.error as { code: string }).code, "upstream_unavailable");
    } finally {
      await close();
      await down.close();
    }
  },
);

test.serial(
  "rag: a rate-limited inline upload is queued, then ingested when the minute has passed",
  async (t) => {
    const { gw, clock, close } = await gateway("pglite", { RAG_POLL_MS: "20" });
    try {
      await deployModel(gw.url, gw.adminKey, { name: "emb-rl", modality: "embedding" }, up.url);
      const key = await customerKey(gw.url, gw.adminKey, "free");
      const api = (method: string, path: string, body?: unknown) =>
        call(gw.url, method, path, key, body);
      const col = await api("POST", "/api/v1/rag/collections", {
        name: "c",
        embedding_model: "emb-rl",
      });
      // The free tier's 20 requests of this minute, spent by the key's own calls.
      for (let i = 0; i < 20; i++) {
        const r = await call(gw.url, "POST", "/v1/embeddings", key, {
          model: "emb-rl",
          input: `x${i}`,
        });
        t.is(r.status, 200);
      }
      const doc = await api("POST", `/api/v1/rag/collections/${col.json.id as string}/documents`, {
        content: "Refunds are issued within thirty days of purchase.",
      });
      t.is(doc.status, 202, JSON.stringify(doc.json));
      t.is((doc.json.error as { code: string }).code, "rate_limit_exceeded");
      clock.advance(61_000);
      let status = "";
      for (let i = 0; i < 200 && status !== "ready"; i++) {
        await new Promise((r) => setTimeout(r, 25));
        status = (await api("GET", `/api/v1/rag/documents/${doc.json.id as string}`)).json
          .status as string;
      }
      t.is(status, "ready");
    } finally {
      await close();
    }
  },
);
