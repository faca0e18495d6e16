/**
 * Memory of one gateway under load, for hunting leaks (docs/benchmarks.md, "Memory and the
 * embedded store"): bench/gateway-process.ts on a fresh DATA_DIR (embedded store on disk) or, with
 * PG=<postgres server URL>, on a fresh database; `wrk -t1 -c50` (CONNS=n for -cn) JSON chat with a default-policy key
 * for SECS seconds (default 60); the gateway's RSS and main-thread heap every 5 s. NODE_ARGS adds
 * Node options to the gateway (e.g. "--max-old-space-size=256"); SNAP=30,85 writes heap snapshots
 * at those seconds (the gateway runs with --heapsnapshot-signal=SIGUSR2; the files land in the
 * repository root, Heap.*.heapsnapshot). PGLITE_MEMORY_LOG_SECS=30 makes the embedded store's worker
 * print its V8 heap, PGlite's WebAssembly memory and Postgres' memory contexts every 30 s.
 * IDLE_SECS=n keeps sampling for n seconds after the load, with no traffic.
 * SSE=1 drives streamed chat (the bench's 5-chunk stream) instead of JSON; OFF=1 uses a key with
 * every guardrail off instead of the default policy.
 *
 *   SECS=120 npx tsx scripts/memory-probe.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatBody, FAST_MODEL, PACED_MODEL } from "../bench/bench-models.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "../bench/gateway-setup.js";
import { ensureWrk, runWrk } from "../bench/load/wrk.js";
import { startChild } from "../bench/processes/child-process.js";
import { startGateway } from "../bench/processes/gateway-child.js";
import { createFreshDatabase, type FreshDatabase } from "../bench/processes/fresh-database.js";

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const seconds = Number(process.env.SECS ?? 60);
const snapshots = (process.env.SNAP ?? "").split(",").filter(Boolean).map(Number);
const nodeArgs = (process.env.NODE_ARGS ?? "").split(" ").filter(Boolean);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const spaces = (sizes: Record<string, number> = {}): string =>
  Object.entries(sizes)
    .filter(([, size]) => size >= 2 ** 20)
    .map(([name, size]) => `${name.replace(/_space$/, "")}=${mib(size)}`)
    .join(" ");

const wrk = await ensureWrk((line) => console.error(line));
if (wrk === undefined) throw new Error("wrk is needed");
const upstream = await startChild<{ url: string }>(here("../bench/processes/upstream-process.ts"));
let database: FreshDatabase | undefined;
let dataDir: string | undefined;
if (process.env.PG) database = await createFreshDatabase(process.env.PG);
else dataDir = await mkdtemp(join(tmpdir(), "evident-memory-probe-"));
const gateway = await startGateway(
  [database?.url ?? dataDir ?? ""],
  ["--heapsnapshot-signal=SIGUSR2", ...nodeArgs],
);
try {
  const { url, adminKey } = gateway.info;
  const policy = process.env.OFF === "1" ? GUARDRAILS_OFF : undefined;
  const key = await createMemberKey(url, adminKey, "memory-probe", policy);
  await registerBenchModels(url, adminKey, upstream.info.url, [FAST_MODEL, PACED_MODEL], key);
  const started = Date.now();
  const sample = async (): Promise<void> => {
    const s = await gateway.stats();
    const at = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      `${at}s rss ${mib(s.rssBytes)} heapUsed ${mib(s.heapUsedBytes)} heapTotal ${mib(s.heapTotalBytes)} external ${mib(s.externalBytes)} arrayBuffers ${mib(s.arrayBuffersBytes)} spaces ${spaces(s.heapSpaceBytes)}`,
    );
  };
  await sample();
  const cpuBefore = await gateway.cpuUs();
  const timer = setInterval(() => void sample(), 5_000);
  const snapTimers = snapshots.map((at) =>
    setTimeout(() => {
      console.log(`heap snapshot at ${at}s`);
      if (gateway.pid !== undefined) process.kill(gateway.pid, "SIGUSR2");
    }, at * 1000),
  );
  const result = await runWrk(wrk, {
    url: `${url}/v1/chat/completions`,
    connections: Number(process.env.CONNS ?? 50),
    seconds,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: chatBody(FAST_MODEL, process.env.SSE === "1"),
  });
  const cpuPerRequest = (await gateway.cpuUs()) - cpuBefore;
  // IDLE_SECS: keep sampling with no load, to see what the gateway gives back once traffic stops.
  const idleSeconds = Number(process.env.IDLE_SECS ?? 0);
  if (idleSeconds > 0) {
    console.log(`load over; idle for ${idleSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  }
  clearInterval(timer);
  for (const t of snapTimers) clearTimeout(t);
  await sample();
  console.log(
    `requests ${result.requests} req/s ${result.requestsPerSecond.toFixed(0)} non-2xx ${result.non2xx} socket errors ${result.socketErrors} cpu us/req ${(cpuPerRequest / Math.max(1, result.requests)).toFixed(0)}`,
  );
} finally {
  await gateway.stop();
  await upstream.stop();
  await database?.drop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
}
