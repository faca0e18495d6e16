import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { freshPostgresUrl, POSTGRES_URL } from "./support/databases.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

function batchFile(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      custom_id: `${prefix}-${i}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "chat-model", messages: [{ role: "user", content: `${prefix}-${i}` }] },
    }),
  ).join("\n");
}

async function uploadAndCreate(app: RunningApp, key: string, text: string): Promise<string> {
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new Blob([text]), "in.jsonl");
  const res = await fetch(`${app.url}/v1/files`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const file = (await res.json()) as { id: string };
  const batch = await call(app.url, "POST", "/v1/batches", key, {
    input_file_id: file.id,
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
  });
  return batch.json.id as string;
}

async function statusOf(app: RunningApp, key: string, id: string) {
  return (await call(app.url, "GET", `/v1/batches/${id}`, key)).json as {
    status: string;
    request_counts: { total: number; completed: number; failed: number };
    output_file_id: string | null;
  };
}

async function outputIds(app: RunningApp, key: string, fileId: string | null): Promise<string[]> {
  if (!fileId) return [];
  const res = await fetch(`${app.url}/v1/files/${fileId}/content`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { custom_id: string }).custom_id);
}

/** How many times the fake upstream saw each prompt of a batch. */
function upstreamCounts(upstream: FakeUpstream, prefix: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of upstream.requests) {
    const body = r.body as { messages?: { content?: string }[] } | undefined;
    const content = body?.messages?.[0]?.content;
    if (content?.startsWith(`${prefix}-`)) counts.set(content, (counts.get(content) ?? 0) + 1);
  }
  return counts;
}

if (POSTGRES_URL) {
  test.serial(
    "two replicas on real Postgres share batches and never run a line twice (fake upstream)",
    async (t) => {
      const fresh = await freshPostgresUrl();
      const upstream = await startFakeUpstream();
      upstream.script.setDefault({ delayMs: 10 });
      const env = { DATABASE_URL: fresh.url, BATCH_POLL_MS: "30", BATCH_CONCURRENCY: "3" };
      const a = await startTestApp({ env });
      const b = await startTestApp({ env, adminKey: a.adminKey });
      try {
        await deployModel(a.url, a.adminKey, { name: "chat-model" }, upstream.url);
        const key = await customerKey(a.url, a.adminKey, "enterprise");
        const ids = [
          await uploadAndCreate(a, key, batchFile("p", 25)),
          await uploadAndCreate(b, key, batchFile("q", 25)),
          await uploadAndCreate(a, key, batchFile("r", 25)),
        ];
        t.true(
          await within(90_000, async () => {
            const all = await Promise.all(ids.map((id) => statusOf(b, key, id)));
            return all.every((s) => s.status === "completed");
          }),
        );
        for (const [i, prefix] of ["p", "q", "r"].entries()) {
          const s = await statusOf(a, key, ids[i] as string);
          t.deepEqual(s.request_counts, { total: 25, completed: 25, failed: 0 });
          const seen = upstreamCounts(upstream, prefix);
          t.is(seen.size, 25);
          t.true(
            [...seen.values()].every((n) => n === 1),
            `${prefix}: every line sent once`,
          );
          t.is(new Set(await outputIds(b, key, s.output_file_id)).size, 25);
        }
      } finally {
        await a.close();
        await b.close();
        await upstream.close();
        await fresh.drop();
      }
    },
  );

  test.serial(
    "a restart in the middle of a batch loses and duplicates nothing (real Postgres, fake upstream)",
    async (t) => {
      const fresh = await freshPostgresUrl();
      const upstream = await startFakeUpstream();
      upstream.script.setDefault({ delayMs: 40 });
      const env = { DATABASE_URL: fresh.url, BATCH_POLL_MS: "30", BATCH_CONCURRENCY: "2" };
      const first = await startTestApp({ env });
      let second: RunningApp | undefined;
      try {
        await deployModel(first.url, first.adminKey, { name: "chat-model" }, upstream.url);
        const key = await customerKey(first.url, first.adminKey, "enterprise");
        const id = await uploadAndCreate(first, key, batchFile("s", 40));
        t.true(
          await within(
            60_000,
            async () => (await statusOf(first, key, id)).request_counts.completed >= 4,
          ),
        );
        await first.close(); // stops taking lines; the ones in flight finish and are recorded
        const midway = await (async () => {
          second = await startTestApp({ env, adminKey: first.adminKey });
          return statusOf(second, key, id);
        })();
        t.true(midway.request_counts.completed < 40, "the first process stopped mid-batch");
        t.true(
          await within(
            60_000,
            async () => (await statusOf(second as RunningApp, key, id)).status === "completed",
          ),
        );
        const done = await statusOf(second as RunningApp, key, id);
        t.deepEqual(done.request_counts, { total: 40, completed: 40, failed: 0 });
        const seen = upstreamCounts(upstream, "s");
        t.is(seen.size, 40);
        t.true(
          [...seen.values()].every((n) => n === 1),
          "no line sent twice",
        );
        const out = await outputIds(second as RunningApp, key, done.output_file_id);
        t.is(out.length, 40);
        t.is(new Set(out).size, 40);
      } finally {
        await second?.close();
        await upstream.close();
        await fresh.drop();
      }
    },
  );
} else {
  test.skip("batch replica tests need DATABASE_URL", () => undefined);
}
