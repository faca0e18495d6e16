import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf } from "./support/test-app.js";
import {
  cacheBackends as backends,
  cacheGateway as gateway,
  eventually,
  streamText,
} from "./support/cache-gateway.js";

let up: FakeUpstream;
test.before(async () => {
  up = await startFakeUpstream();
});
test.after.always(async () => {
  await up?.close();
});

for (const backend of backends) {
  test.serial(
    `exact cache on ${backend}: hits, isolation, policy, TTL, streams, stats`,
    async (t) => {
      const { gw, clock, close } = await gateway(backend);
      try {
        const model = `cm-${backend}`;
        await deployModel(gw.url, gw.adminKey, { name: model }, up.url);
        const key = await customerKey(gw.url, gw.adminKey, "pro");
        const other = await customerKey(gw.url, gw.adminKey, "pro");
        const cfg = (body: unknown, k = key) =>
          call(gw.url, "PATCH", "/api/v1/cache/config", k, body);
        const chat = (content: string, k = key, headers: Record<string, string> = {}) =>
          call(
            gw.url,
            "POST",
            "/v1/chat/completions",
            k,
            { model, messages: [{ role: "user", content }] },
            headers,
          );

        t.is((await call(gw.url, "GET", "/api/v1/cache/config", key)).json.enabled, false);
        const semantic = await cfg({ mode: "semantic" });
        t.is(semantic.status, 422);
        t.regex(errorOf(semantic.json).message, /semantic mode needs embedding_model/);
        const unknown = await cfg({ mode: "semantic", embedding_model: "no-such-model" });
        t.is(unknown.status, 422);
        t.regex(errorOf(unknown.json).message, /no-such-model/);
        t.is((await cfg({ ttl_seconds: 0 })).status, 422);
        t.is((await cfg({ enabled: true, ttl_seconds: 600 })).json.enabled, true);

        const from = up.requests.length;
        up.script.next({ chunks: ["Write to ", "jane.doe@example.com ", "for help."] });
        const first = await chat("How do I get support?");
        t.is(first.status, 200);
        t.is(first.headers.get("x-evident-cache"), "miss");
        t.true(
          await eventually(async () => {
            const e = await call(gw.url, "GET", "/api/v1/cache/entries", key);
            return (e.json.data as unknown[]).length === 1;
          }),
        );
        const second = await chat("How do I get support?");
        t.is(second.status, 200, JSON.stringify(second.json));
        t.is(second.headers.get("x-evident-cache"), "hit");
        t.is(up.requests.length - from, 1, "the hit did not go upstream");
        const content = (r: typeof second) =>
          (r.json.choices as { message: { content: string } }[])[0]?.message.content;
        t.is(content(second), content(first));
        t.notRegex(content(second) ?? "", /jane\.doe/, "output guardrails ran on the hit");
        t.deepEqual(second.json.usage, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

        // Streamed: replayed as server-sent events.
        const streamed = await streamText(gw.url, key, {
          model,
          stream: true,
          messages: [{ role: "user", content: "How do I get support?" }],
        });
        t.is(streamed.res.headers.get("content-type"), "text/event-stream; charset=utf-8");
        t.is(streamed.res.headers.get("x-evident-cache"), "hit");
        t.is(streamed.text, content(first));
        t.true(streamed.raw.endsWith("data: [DONE]\n\n"));
        t.is(up.requests.length - from, 1);

        // Never across customers; confidential calls bypass; no-cache skips the lookup.
        t.is((await chat("How do I get support?", other)).headers.get("x-evident-cache"), null);
        await cfg({ enabled: true }, other);
        t.is((await chat("How do I get support?", other)).headers.get("x-evident-cache"), "miss");
        const confidential = await chat("How do I get support?", key, {
          "x-data-classification": "confidential",
        });
        t.is(confidential.headers.get("x-evident-cache"), "bypass");
        // Cached when the customer turns it on, and then only for calls of that classification.
        await cfg({ cache_confidential: true });
        const secret = { "x-data-classification": "confidential" };
        const count = async () =>
          ((await call(gw.url, "GET", "/api/v1/cache/entries", key)).json.data as unknown[]).length;
        const entriesBefore = await count();
        t.is((await chat("board minutes?", key, secret)).headers.get("x-evident-cache"), "miss");
        t.true(await eventually(async () => (await count()) === entriesBefore + 1));
        t.is((await chat("board minutes?", key, secret)).headers.get("x-evident-cache"), "hit");
        t.is((await chat("board minutes?")).headers.get("x-evident-cache"), "miss");
        await cfg({ cache_confidential: false });
        const noCache = await chat("How do I get support?", key, { "cache-control": "no-cache" });
        t.is(noCache.headers.get("x-evident-cache"), "miss");

        // The audit record says served_from_cache.
        const served = await call(
          gw.url,
          "GET",
          "/api/v1/audit/records?outcome=served_from_cache",
          key,
        );
        const rec = (served.json.data as { details: { cache: Record<string, unknown> } }[])[0];
        t.is(rec?.details.cache.result, "hit");
        t.is(rec?.details.cache.kind, "exact");

        // A changed guardrail policy never serves answers stored under the old one.
        const changed = await call(gw.url, "PATCH", "/api/v1/guardrails/policy", key, {
          safety: { enabled: false },
        });
        t.is(changed.status, 200, JSON.stringify(changed.json));
        t.is((await chat("How do I get support?")).headers.get("x-evident-cache"), "miss");

        // Stats, entries, invalidation, flush: per customer.
        const page = () => call(gw.url, "GET", "/api/v1/cache/entries?limit=1", key);
        t.true(await eventually(async () => (await page()).json.has_more === true));
        const entries = await page();
        const hash = (entries.json.data as { key_hash: string }[])[0]?.key_hash as string;
        const invalidate = (body: unknown, k = key) =>
          call(gw.url, "POST", "/api/v1/cache/invalidate", k, body);
        t.is((await invalidate({ key_hash: hash }, other)).json.deleted, 0);
        t.is((await invalidate({ key_hash: hash })).json.deleted, 1);
        t.is((await invalidate({})).status, 422);
        t.is((await invalidate({ key_hash: "\ud800" })).status, 422);
        t.is((await invalidate("{not json")).status, 400);
        t.is((await invalidate({ model: "a\u0000b" })).status, 422);
        t.is((await call(gw.url, "GET", "/api/v1/cache/entries?model=%00", key)).status, 422);
        t.is((await cfg({ embedding_model: "\ud800" })).status, 422);
        const otherEntries = await call(gw.url, "GET", "/api/v1/cache/entries", other);
        t.is(
          (otherEntries.json.data as unknown[]).length,
          1,
          "the other customer sees only its own",
        );
        t.true(
          ((await call(gw.url, "DELETE", "/api/v1/cache/flush", key)).json.deleted as number) >= 1,
        );
        t.is(
          ((await call(gw.url, "GET", "/api/v1/cache/entries", other)).json.data as unknown[])
            .length,
          1,
        );

        // A streamed miss is stored too (its text), and serves a later JSON call.
        up.script.next({ chunks: ["streamed ", "answer"] });
        const streamedMiss = await streamText(gw.url, key, {
          model,
          stream: true,
          messages: [{ role: "user", content: "stream question" }],
        });
        t.is(streamedMiss.res.headers.get("x-evident-cache"), "miss");
        t.is(streamedMiss.text, "streamed answer");
        t.true(
          await eventually(async () => {
            const e = await call(gw.url, "GET", "/api/v1/cache/entries?limit=100", key);
            return (e.json.data as unknown[]).length === 1;
          }),
        );
        const fromStream = await chat("stream question");
        t.is(fromStream.headers.get("x-evident-cache"), "hit");
        t.is(content(fromStream), "streamed answer");
        await call(gw.url, "DELETE", "/api/v1/cache/flush", key);

        // TTL: past it, a miss.
        await chat("ttl question");
        t.true(
          await eventually(async () => {
            const e = await call(gw.url, "GET", "/api/v1/cache/entries?limit=100", key);
            return (e.json.data as unknown[]).length === 1;
          }),
        );
        t.is((await chat("ttl question")).headers.get("x-evident-cache"), "hit");
        clock.advance(601_000);
        t.is((await chat("ttl question")).headers.get("x-evident-cache"), "miss");

        // Stats: the hits and misses above, from the audit log.
        t.true(
          await eventually(async () => {
            const s = await call(gw.url, "GET", "/api/v1/cache/stats?window_hours=1", key);
            return (s.json.totals as { hits: number }).hits === 5;
          }),
        );
        const stats = (await call(gw.url, "GET", "/api/v1/cache/stats", key)).json;
        const totals = stats.totals as Record<string, number>;
        t.is(totals.hits, 5);
        t.true((totals.misses ?? 0) >= 4);
        t.true((totals.tokens_saved ?? 0) > 0);
        t.is((stats.by_model as { model: string }[])[0]?.model, model);
        t.is((await call(gw.url, "GET", "/api/v1/cache/stats?window_hours=0", key)).status, 422);
      } finally {
        await close();
      }
    },
  );
}
