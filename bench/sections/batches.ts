/**
 * Batches: lines per second through the whole pipeline (validation, guardrails, routing, metering,
 * audit, output file) with a zero-delay upstream, and the latency of interactive calls made one at
 * a time while the batch runs, against the same calls before it. In one process (gateway on
 * in-memory PGlite, the fake upstream, and the interactive client): ratios, not absolute figures.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "../../dataplane/app/create-app.js";
import { memoryBroadcast } from "../../dataplane/broadcast/broadcast.js";
import { loadConfig } from "../../dataplane/config/config.js";
import { generateApiKey } from "../../dataplane/core/api-key-format.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";
import { startFakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import { registerBenchModels } from "../gateway-setup.js";
import { percentile } from "../load/percentile.js";
import type { Section, SectionReport } from "./section.js";

const MODEL = "batch-bench";
const LINES = 1_000;

async function chat(url: string, key: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Say hello" }] }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`interactive call: HTTP ${res.status}`);
  return performance.now() - started;
}

export const batchesSection: Section = {
  name: "batches: lines per second, interactive latency while a batch runs",
  async run({ log }): Promise<SectionReport> {
    const upstream = await startFakeUpstream({ models: [MODEL], recordRequests: false });
    const adminKey = generateApiKey();
    // Its own DATA_DIR: the local audit log there must not collide with another gateway's.
    const dataDir = await mkdtemp(join(tmpdir(), "evident-bench-batches-"));
    const config = loadConfig({
      LOG_LEVEL: "silent",
      DATA_DIR: dataDir,
      EVIDENT_ADMIN_KEY: adminKey,
      BATCH_POLL_MS: "20",
      BATCH_CONCURRENCY: "8",
    });
    const db = await openPglite(undefined);
    const app = await createApp(config, {
      logger: pino({ level: "silent" }),
      stores: { db, redis: undefined, broadcast: memoryBroadcast() },
    });
    await app.http.listen({ port: 0, host: "127.0.0.1" });
    const address = app.http.server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    try {
      await registerBenchModels(url, adminKey, upstream.url, [MODEL], adminKey);
      log("batches: interactive baseline");
      const before: number[] = [];
      for (let i = 0; i < 200; i++) before.push(await chat(url, adminKey));

      const text = Array.from({ length: LINES }, (_, i) =>
        JSON.stringify({
          custom_id: `l${i}`,
          method: "POST",
          url: "/v1/chat/completions",
          body: { model: MODEL, messages: [{ role: "user", content: `Summarise item ${i}` }] },
        }),
      ).join("\n");
      const form = new FormData();
      form.append("purpose", "batch");
      form.append("file", new Blob([text]), "bench.jsonl");
      const auth = { authorization: `Bearer ${adminKey}` };
      const file = (await (
        await fetch(`${url}/v1/files`, { method: "POST", headers: auth, body: form })
      ).json()) as { id: string };
      log(`batches: ${LINES} lines`);
      const started = performance.now();
      const created = (await (
        await fetch(`${url}/v1/batches`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({
            input_file_id: file.id,
            endpoint: "/v1/chat/completions",
            completion_window: "24h",
          }),
        })
      ).json()) as { id: string };
      const during: number[] = [];
      let status = "validating";
      let completed = 0;
      while (!["completed", "failed", "expired", "cancelled"].includes(status)) {
        during.push(await chat(url, adminKey));
        const batch = (await (
          await fetch(`${url}/v1/batches/${created.id}`, { headers: auth })
        ).json()) as { status: string; request_counts: { completed: number } };
        status = batch.status;
        completed = batch.request_counts.completed;
      }
      const seconds = (performance.now() - started) / 1000;
      const linesPerSecond = completed / seconds;
      const p = (s: number[], q: number) => percentile(s, q);
      return {
        name: this.name,
        table: [
          ["measure", "value"],
          ["batch lines", String(LINES)],
          ["batch status", status],
          ["lines per second (create -> completed)", linesPerSecond.toFixed(0)],
          [
            "interactive p50 ms before / during",
            `${p(before, 50).toFixed(2)} / ${p(during, 50).toFixed(2)}`,
          ],
          [
            "interactive p99 ms before / during",
            `${p(before, 99).toFixed(2)} / ${p(during, 99).toFixed(2)}`,
          ],
        ],
        ratios: {
          batch_lines_per_second: Math.round(linesPerSecond),
          interactive_p50_during_over_before: p(during, 50) / p(before, 50),
          interactive_p99_during_over_before: p(during, 99) / p(before, 99),
        },
        targets: [],
        notes: [
          "gateway, fake upstream and the interactive client share one process (embedded PGlite); " +
            "BATCH_CONCURRENCY=8; interactive calls one at a time",
        ],
        data: { before, during, seconds, completed },
      };
    } finally {
      await app.close();
      await db.close();
      await upstream.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
