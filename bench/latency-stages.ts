/**
 * Where a request's time goes inside the gateway at concurrency 1 (issue 13's added-latency
 * figure): the gateway runs in this process, the fake upstream in its own, and wrk drives JSON chat
 * at -c1. Each request's timeline is marked from the outside, without changing the gateway: the
 * HTTP server's diagnostics channels (request start, response finish), undici's (upstream request
 * created, response headers, body done), every pipeline stage's hooks, the audit writer's append
 * (until durable) and the local log's write and fdatasync. Work beside the requests (GC pauses by
 * kind, audit ingestion batches) is matched to the requests it overlaps.
 *
 *   npx tsx bench/latency-stages.ts [embedded|postgres] [seconds=5] [off|default]
 *
 * Printed: for each segment of the timeline (named by the mark that ends it; "→ x" is the time
 * between the previous mark and the start of x), its median and p99 over all requests, its mean,
 * and its mean over the slowest 1% of requests (what makes the tail slow). Postgres:
 * BENCH_POSTGRES_URL (default the local server), on a fresh database.
 */
import { subscribe } from "node:diagnostics_channel";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createApp } from "../dataplane/app/create-app.js";
import { loadConfig } from "../dataplane/config/config.js";
import { generateApiKey } from "../dataplane/core/api-key-format.js";
import type { PipelineStage } from "../dataplane/core/pipeline.js";
import { chatBody, FAST_MODEL } from "./bench-models.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "./gateway-setup.js";
import { percentile } from "./load/percentile.js";
import { ensureWrk, runWrk } from "./load/wrk.js";
import { startChild } from "./processes/child-process.js";
import { createFreshDatabase } from "./processes/fresh-database.js";

const [storeArg = "embedded", secondsArg = "5", policy = "default"] = process.argv.slice(2);
if (storeArg !== "embedded" && storeArg !== "postgres") throw new Error("store: embedded|postgres");

interface Timeline {
  start: number;
  marks: { label: string; at: number }[];
  end: number | undefined;
}

let current: Timeline | undefined;
const done: Timeline[] = [];
const mark = (label: string): void => {
  current?.marks.push({ label, at: performance.now() });
};

function wrapHook<A extends unknown[], R>(
  label: string,
  fn: ((...args: A) => Promise<R>) | undefined,
): ((...args: A) => Promise<R>) | undefined {
  if (!fn) return undefined;
  return async (...args: A) => {
    mark(`→ ${label}`);
    try {
      return await fn(...args);
    } finally {
      mark(label);
    }
  };
}

function traceStage(stage: PipelineStage): void {
  const s = stage as {
    -readonly [K in keyof PipelineStage]: PipelineStage[K];
  };
  s.beforeForward = wrapHook(`${stage.name}.beforeForward`, stage.beforeForward?.bind(stage));
  s.transformResponse = wrapHook(`${stage.name}.transform`, stage.transformResponse?.bind(stage));
  s.afterCall = wrapHook(`${stage.name}.afterCall`, stage.afterCall?.bind(stage));
}

subscribe("http.server.request.start", () => {
  current = { start: performance.now(), marks: [], end: undefined };
});
subscribe("http.server.response.finish", () => {
  if (!current) return;
  current.end = performance.now();
  done.push(current);
  current = undefined;
});
subscribe("undici:request:create", () => mark("upstream request created"));
subscribe("undici:request:headers", () => mark("upstream response headers"));
subscribe("undici:request:trailers", () => mark("upstream body read"));

// The local log's write and fdatasync, on every FileHandle (only the log writes during the run).
const probe = await open(fileURLToPath(import.meta.url), "r");
const fileHandle = Object.getPrototypeOf(probe) as Record<string, unknown>;
await probe.close();
for (const method of ["write", "datasync", "sync"]) {
  const original = fileHandle[method] as (...args: unknown[]) => Promise<unknown>;
  fileHandle[method] = async function (this: unknown, ...args: unknown[]) {
    mark(`→ file.${method}`);
    try {
      return await original.apply(this, args);
    } finally {
      mark(`file.${method}`);
    }
  };
}

/** Work beside the requests: GC pauses (by kind) and audit ingestion batches (start to commit). */
interface Background {
  kind: string;
  start: number;
  end: number;
}
const background: Background[] = [];
const GC_KINDS: Record<number, string> = {
  1: "GC minor",
  2: "GC major",
  4: "GC incremental",
  8: "GC weak",
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
    background.push({
      kind: GC_KINDS[kind] ?? "GC other",
      start: e.startTime,
      end: e.startTime + e.duration,
    });
  }
}).observe({ entryTypes: ["gc"] });

const upstream = await startChild<{ url: string }>(
  fileURLToPath(new URL("processes/upstream-process.ts", import.meta.url)),
);
const dataDir = await mkdtemp(join(tmpdir(), "evident-latency-stages-"));
const database =
  storeArg === "postgres"
    ? await createFreshDatabase(
        process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres",
      )
    : undefined;
const adminKey = generateApiKey();
const config = loadConfig({
  LOG_LEVEL: "silent",
  EVIDENT_ADMIN_KEY: adminKey,
  DATA_DIR: dataDir,
  ...(database ? { DATABASE_URL: database.url } : {}),
});
const app = await createApp(config, { logger: pino({ level: "silent" }) });
try {
  await app.http.listen({ port: 0, host: "127.0.0.1" });
  const address = app.http.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const key = await createMemberKey(
    url,
    adminKey,
    "stages",
    policy === "off" ? GUARDRAILS_OFF : undefined,
  );
  await registerBenchModels(url, adminKey, upstream.info.url, [FAST_MODEL], key);
  for (const stage of app.ctx.pipeline.stages) traceStage(stage);
  const writer = app.ctx.audit.writer;
  const append = writer.append.bind(writer);
  writer.append = (record) => {
    mark("→ audit append");
    const durable = append(record);
    durable.then(
      () => mark("audit append durable"),
      () => undefined,
    );
    return durable;
  };
  // Ingestion batches (AuditIngester's private `ingest`, one store transaction per batch).
  const ingester = writer.ingester as unknown as Record<
    string,
    (...args: unknown[]) => Promise<void>
  >;
  const ingest = ingester.ingest?.bind(ingester);
  if (ingest)
    ingester.ingest = async (...args: unknown[]) => {
      const start = performance.now();
      try {
        await ingest(...args);
      } finally {
        background.push({ kind: "audit ingestion batch", start, end: performance.now() });
      }
    };
  const wrk = await ensureWrk((line) => console.log(line));
  if (!wrk) throw new Error("wrk is not installed");
  const spec = {
    url: `${url}/v1/chat/completions`,
    connections: 1,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: chatBody(FAST_MODEL, false),
  };
  await runWrk(wrk, { ...spec, seconds: 2 });
  done.length = 0;
  background.length = 0;
  const result = await runWrk(wrk, { ...spec, seconds: Number(secondsArg) });
  printReport(result.p50Ms, result.p99Ms);
} finally {
  await app.close();
  await upstream.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}

function printReport(clientP50: number, clientP99: number): void {
  const timelines = done.filter((t) => t.end !== undefined);
  const total = (t: Timeline) => (t.end as number) - t.start;
  const sorted = [...timelines].sort((a, b) => total(b) - total(a));
  const slow = new Set(sorted.slice(0, Math.max(1, Math.ceil(timelines.length / 100))));
  const segments = new Map<string, { all: number[]; slow: number[] }>();
  for (const t of timelines) {
    let previous = t.start;
    const points = [...t.marks, { label: "reply finished", at: t.end as number }];
    for (const m of points) {
      const entry = segments.get(m.label) ?? { all: [], slow: [] };
      entry.all.push((m.at - previous) * 1000);
      if (slow.has(t)) entry.slow.push((m.at - previous) * 1000);
      segments.set(m.label, entry);
      previous = m.at;
    }
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const us = (n: number) => n.toFixed(0).padStart(8);
  console.log(`requests ${timelines.length}; wrk p50 ${clientP50} ms, p99 ${clientP99} ms`);
  const totals = timelines.map((t) => total(t) * 1000);
  console.log(
    `in the gateway (request start -> reply finished): p50 ${us(percentile(totals, 50))} us, p99 ${us(percentile(totals, 99))} us`,
  );
  console.log(`${"segment (us)".padEnd(36)}   median      p99     mean  slow 1% mean`);
  for (const [label, s] of segments) {
    const row = [percentile(s.all, 50), percentile(s.all, 99), mean(s.all), mean(s.slow)];
    console.log(`${label.padEnd(36)} ${row.map(us).join(" ")}   (n=${s.all.length})`);
  }
  const overlap = (b: Background, t: Timeline) =>
    Math.max(0, Math.min(b.end, t.end as number) - Math.max(b.start, t.start));
  const kinds = [...new Set(background.map((b) => b.kind))].sort();
  console.log(
    `${"beside the requests".padEnd(24)}  count  mean us   max us  share of requests overlapped: all, slowest 1%  (mean overlap us in the slowest)`,
  );
  for (const kind of kinds) {
    const of = background.filter((b) => b.kind === kind);
    const hit = (ts: Timeline[]) => ts.filter((t) => of.some((b) => overlap(b, t) > 0)).length;
    const inSlow = [...slow].map((t) => of.reduce((sum, b) => sum + overlap(b, t), 0) * 1000);
    const lengths = of.map((b) => (b.end - b.start) * 1000);
    console.log(
      `${kind.padEnd(24)} ${String(of.length).padStart(6)} ${us(mean(lengths))} ${us(Math.max(...lengths))}` +
        `   ${((100 * hit(timelines)) / timelines.length).toFixed(1).padStart(5)}%  ${((100 * hit([...slow])) / slow.size).toFixed(1).padStart(5)}%  (${us(mean(inSlow))})`,
    );
  }
}
