/**
 * JSON chat throughput with AUDIT_DURABILITY=local vs store, on the embedded store and (with
 * BENCH_POSTGRES_URL) on Postgres, side by side in one run: wrk -t1 -c50, interleaved rounds of
 * 5 s against gateway processes on 127.0.0.1 and a zero-delay fake upstream (guardrails at the
 * default policy). With Postgres it also measures ingestion lag in local mode: the time from a
 * call's answer until its record is in the store, idle and under load.
 *
 *   npx tsx scripts/measure-audit-durability.ts          (ROUNDS=5 SECONDS=5 by default)
 */
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { generateApiKey } from "../dataplane/core/api-key-format.js";
import { startFakeUpstream } from "../test/fakes/fake-openai-upstream.js";
import { startDataplaneProcess, type DataplaneProcess } from "../test/support/dataplane-process.js";
import { deployModel } from "../test/support/inference-fixture.js";
import { call } from "../test/support/test-app.js";

const run = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 5);
const POSTGRES = process.env.BENCH_POSTGRES_URL;

interface Target {
  name: string;
  gateway: DataplaneProcess;
  url: string;
  key: string;
  dataDir: string;
  dbUrl?: string;
  dropDb?: () => Promise<void>;
  rates: number[];
}

async function freshDatabase(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `evident_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function start(store: string, durability: string, upstream: string): Promise<Target> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "evident-durability-bench-"));
  const db = store === "postgres" && POSTGRES ? await freshDatabase(POSTGRES) : undefined;
  const adminKey = generateApiKey();
  const gateway = startDataplaneProcess({
    DATA_DIR: dataDir,
    EVIDENT_ADMIN_KEY: adminKey,
    AUDIT_DURABILITY: durability,
    LOG_LEVEL: "info",
    MANAGEMENT_RPM: "100000",
    ...(db ? { DATABASE_URL: db.url } : {}),
  });
  const url = await gateway.url;
  await deployModel(url, adminKey, { name: "bench-model" }, upstream);
  const key = adminKey; // as in issue 13's figures: no per-customer limits in the way
  return {
    name: `${store}/${durability}`,
    gateway,
    url,
    key,
    dataDir,
    dbUrl: db?.url,
    dropDb: db?.drop,
    rates: [],
  };
}

async function wrk(target: Target, seconds: number): Promise<number> {
  const script = path.join(target.dataDir, "post.lua");
  const body = JSON.stringify({
    model: "bench-model",
    messages: [{ role: "user", content: "What is the capital of France?" }],
  });
  await writeFile(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${target.key}"\n`,
  );
  const { stdout } = await run("wrk", [
    "-t1",
    "-c50",
    `-d${seconds}s`,
    "-s",
    script,
    `${target.url}/v1/chat/completions`,
  ]);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  if (non2xx) throw new Error(`${target.name}: ${non2xx[1]} failed responses`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** ms from a call's answer until its record is in the store (polled every 1 ms). */
async function ingestLag(target: Target, samples: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: target.dbUrl });
  await client.connect();
  const lags: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const id = randomUUID();
      await call(
        target.url,
        "POST",
        "/v1/chat/completions",
        target.key,
        { model: "bench-model", messages: [{ role: "user", content: "lag probe" }] },
        { "x-request-id": id },
      );
      const answered = performance.now();
      for (;;) {
        const r = await client.query("SELECT 1 FROM audit_records WHERE request_id = $1", [id]);
        if (r.rowCount) break;
        await new Promise((res) => setTimeout(res, 1));
      }
      lags.push(performance.now() - answered);
      await new Promise((res) => setTimeout(res, 50));
    }
  } finally {
    await client.end();
  }
  return lags;
}

const upstream = await startFakeUpstream({ recordRequests: false });
const targets: Target[] = [];
try {
  for (const store of POSTGRES ? ["pglite", "postgres"] : ["pglite"]) {
    for (const durability of ["local", "store"])
      targets.push(await start(store, durability, upstream.url));
  }
  for (const t of targets) await wrk(t, 2); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) t.rates.push(await wrk(t, SECONDS));
  }
  console.log(
    `wrk -t1 -c50, ${ROUNDS} interleaved rounds of ${SECONDS} s, JSON chat, default policy`,
  );
  for (const t of targets) {
    console.log(
      `${t.name.padEnd(16)} median ${median(t.rates).toFixed(0)} req/s  [${t.rates.map((r) => r.toFixed(0)).join(", ")}]`,
    );
  }
  for (const store of POSTGRES ? ["pglite", "postgres"] : ["pglite"]) {
    const local = targets.find((t) => t.name === `${store}/local`);
    const durable = targets.find((t) => t.name === `${store}/store`);
    if (local && durable) {
      console.log(
        `${store}: local / store = ${(median(local.rates) / median(durable.rates)).toFixed(2)}`,
      );
    }
  }
  const pgLocal = targets.find((t) => t.name === "postgres/local");
  if (pgLocal) {
    const idle = await ingestLag(pgLocal, 30);
    const loaded = await Promise.all([ingestLag(pgLocal, 30), wrk(pgLocal, 4)]);
    const fmt = (xs: number[]) =>
      `p50 ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
    console.log(
      `postgres/local ingestion lag idle: ${fmt(idle)}; under wrk -c50: ${fmt(loaded[0])}`,
    );
  }
} finally {
  for (const t of targets) {
    t.gateway.child.kill("SIGTERM");
    await t.gateway.exited;
    await t.dropDb?.();
    await rm(t.dataDir, { recursive: true, force: true });
  }
  await upstream.close();
}
