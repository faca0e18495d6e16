import test from "ava";
import { startFakeUpstream } from "./fakes/fake-openai-upstream.js";
import { deployModel } from "./support/inference-fixture.js";
import { call, startTestApp } from "./support/test-app.js";

test("bad inference bodies: wrong types, missing fields, huge bodies, bad classification header", async (t) => {
  const upstream = await startFakeUpstream();
  const gateway = await startTestApp({ env: { UPSTREAM_ALLOWED_CIDRS: "127.0.0.1/32" } });
  try {
    await deployModel(gateway.url, gateway.adminKey, { name: "strict" }, upstream.url);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      call(gateway.url, "POST", "/v1/chat/completions", gateway.adminKey, body, headers);
    t.is((await post({ model: "strict" })).status, 422);
    t.is((await post({ model: 5, messages: [] })).status, 422);
    t.is((await post({ model: "strict", messages: "hi" })).status, 422);
    t.is((await post({ model: "strict", messages: [{ content: "no role" }] })).status, 422);
    t.is((await post("{not json")).status, 400);
    t.is(
      (
        await post({
          model: "strict",
          messages: [{ role: "user", content: "x".repeat(5_000_000) }],
        })
      ).status,
      413,
    );
    const cls = await post(
      { model: "strict", messages: [{ role: "user", content: "x" }] },
      { "x-data-classification": "top-secret" },
    );
    t.is(cls.status, 422);
    const emb = await call(gateway.url, "POST", "/v1/embeddings", gateway.adminKey, {
      model: "strict",
      input: 42,
    });
    t.is(emb.status, 422);
    const audio = await call(gateway.url, "POST", "/v1/audio/transcriptions", gateway.adminKey, {
      model: "strict",
    });
    t.is(audio.status, 415);
    const noKey = await call(gateway.url, "POST", "/v1/chat/completions", undefined, {
      model: "strict",
      messages: [],
    });
    t.is(noKey.status, 401);
  } finally {
    await gateway.close();
    await upstream.close();
  }
});
