/**
 * The response cache: the cost of one lookup (exact by key, semantic nearest neighbour) at 10k and
 * 100k stored entries of one customer and model, on the embedded PGlite with pgvector (HNSW) and
 * without it (exact scan), and on real Postgres (exact scan; BENCH_POSTGRES_URL); then the latency
 * of a chat completion served from the cache against a miss and the cache off, through an
 * in-process gateway and a fake upstream (a test double).
 */
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { createApp } from "../../dataplane/app/create-app.js";
import { memoryBroadcast } from "../../dataplane/broadcast/broadcast.js";
import { loadConfig } from "../../dataplane/config/config.js";
import { generateApiKey } from "../../dataplane/core/api-key-format.js";
import { CacheRepository } from "../../dataplane/store/cache-repository.js";
import type { Database } from "../../dataplane/store/database.js";
import { migrate } from "../../dataplane/store/migrate.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";
import { openPostgres } from "../../dataplane/store/postgres-database.js";
import { startFakeUpstream } from "../../test/fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "../../test/support/inference-fixture.js";
import { call } from "../../test/support/test-app.js";
import { percentile } from "../../dataplane/routing/routes/ab-statistics.js";
import { createFreshDatabase } from "../processes/fresh-database.js";
import type { Section, SectionContext, SectionReport } from "./section.js";

const DIMS = 256;
const LOOKUPS = 200;

function randomUnit(): number[] {
  const v = Array.from({ length: DIMS }, () => Math.random() - 0.5);
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}

/**
 * Fills the store with `size` entries of one customer and scope (the worst case for a scan) in one
 * INSERT ... SELECT. Vector indexes are dropped first and rebuilt on the first lookup (a bulk build
 * is much faster than maintaining HNSW row by row); returns the seconds the insert took.
 */
async function fill(db: Database, size: number): Promise<number> {
  const t0 = performance.now();
  const indexes = await db.query<{ indexname: string }>(
    "SELECT indexname FROM pg_indexes WHERE tablename = 'cache_entries' AND indexname LIKE 'cache_entries_hnsw_%'",
  );
  for (const { indexname } of indexes) await db.exec(`DROP INDEX IF EXISTS "${indexname}"`);
  await db.exec("TRUNCATE cache_entries");
  await db.query(
    `INSERT INTO cache_entries (customer_id, key_hash, scope_hash, model, response, prompt_tokens,
       completion_tokens, cost_usd, embedding_model, embedding, expires_at)
     SELECT 'bench', md5(g::text), 'scope', 'm', '{"choices":[]}'::jsonb, 10, 10, 0, 'emb',
            (SELECT array_agg((random() - 0.5)::real) FROM generate_series(1, $2) d WHERE g > 0),
            now() + interval '1 day'
       FROM generate_series(1, $1) g`,
    [size, DIMS],
  );
  return (performance.now() - t0) / 1000;
}

async function timeLookups(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 10; i++) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

interface Row {
  store: string;
  search: string;
  entries: number;
  seedSeconds: number;
  indexSeconds: number | null;
  exactP50: number | null;
  semanticP50: number | null;
  semanticP95: number | null;
}

async function lookupCosts(
  name: string,
  db: Database,
  sizes: number[],
  log: SectionContext["log"],
): Promise<Row[]> {
  await migrate(db);
  const rows: Row[] = [];
  const now = new Date();
  for (const size of sizes) {
    log(`cache: ${name}, filling ${size} entries`);
    const seedSeconds = await fill(db, size);
    // A fresh repository per size: its HNSW index is built on first use, timed apart.
    const repo = new CacheRepository(db);
    const search = name.includes("without") ? "exact_scan" : await repo.prepareVectors();
    let indexSeconds: number | null = null;
    if (search === "pgvector_hnsw") {
      log(`cache: ${name}, building the HNSW index over ${size} entries`);
      // pgvector builds HNSW in memory only within maintenance_work_mem (default 64 MB; 100k
      // 256-dimension vectors need more), else on disk and an order of magnitude slower.
      await db.exec("SET maintenance_work_mem = '512MB'");
      const t0 = performance.now();
      await repo.nearest("bench", "scope", "emb", randomUnit(), now);
      indexSeconds = (performance.now() - t0) / 1000;
    }
    await db.exec("ANALYZE cache_entries");
    const exact = await timeLookups((i) => repo.exact("bench", `nokey${i}`, now));
    const queries = Array.from({ length: 20 }, randomUnit);
    const semantic = await timeLookups((i) =>
      repo.nearest("bench", "scope", "emb", queries[i % queries.length] as number[], now),
    );
    rows.push({
      store: name,
      search,
      entries: size,
      seedSeconds,
      indexSeconds,
      exactP50: percentile(exact, 0.5),
      semanticP50: percentile(semantic, 0.5),
      semanticP95: percentile(semantic, 0.95),
    });
  }
  return rows;
}

async function hitVersusMiss(log: SectionContext["log"], store: string, db: Database) {
  const up = await startFakeUpstream({ recordRequests: false });
  const adminKey = generateApiKey();
  const app = await createApp(loadConfig({ LOG_LEVEL: "silent", EVIDENT_ADMIN_KEY: adminKey }), {
    logger: pino({ level: "silent" }),
    stores: { db, redis: undefined, broadcast: memoryBroadcast() },
  });
  await app.http.listen({ port: 0, host: "127.0.0.1" });
  const address = app.http.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  try {
    await deployModel(url, adminKey, { name: "bench-cache" }, up.url);
    // Two customers: one with the cache off, one with it on (misses: new prompts; hits: one).
    const offKey = await customerKey(url, adminKey, "enterprise");
    const onKey = await customerKey(url, adminKey, "enterprise");
    await call(url, "PATCH", "/api/v1/cache/config", onKey, { enabled: true });
    const chat = (key: string, content: string) =>
      call(url, "POST", "/v1/chat/completions", key, {
        model: "bench-cache",
        messages: [{ role: "user", content }],
      });
    await chat(onKey, "the same question");
    await new Promise((r) => setTimeout(r, 500));
    const kinds = [
      { label: "cache off", key: offKey, content: (i: number) => `question ${i} about invoices` },
      { label: "miss (lookup, forward, store)", key: onKey, content: (i: number) => `new ${i}` },
      { label: "hit (served from cache)", key: onKey, content: () => "the same question" },
    ];
    const wall = kinds.map(() => [] as number[]);
    const cpu = kinds.map(() => [] as number[]);
    log(`cache: off, miss and hit calls, interleaved (gateway on ${store})`);
    // Interleaved (off, miss, hit, off, ...) so that the machine's load falls on all three alike.
    for (let i = 0; i < 200; i++) {
      for (const [k, kind] of kinds.entries()) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const r = await chat(kind.key, kind.content(i));
        wall[k]?.push(performance.now() - t0);
        const used = process.cpuUsage(c0);
        cpu[k]?.push((used.user + used.system) / 1000);
        if (r.status !== 200) throw new Error(`bench call failed: ${r.status}`);
      }
    }
    const [off, miss, hit] = kinds.map((kind, k) => {
      const times = (wall[k] ?? []).sort((x, y) => x - y);
      const cpuMs = (cpu[k] ?? []).sort((x, y) => x - y);
      return {
        label: `${kind.label} @${store}`,
        p50: percentile(times, 0.5),
        p95: percentile(times, 0.95),
        cpuP50: percentile(cpuMs, 0.5),
      };
    });
    return [off, miss, hit];
  } finally {
    await app.close();
    await up.close();
  }
}

const ms = (v: number | null) => (v === null ? "-" : v.toFixed(3));

const NAME = "response cache (lookup cost; hit vs miss latency)";

/** The section at the given store sizes (npm run bench: 10k and 100k). */
export function cacheSectionFor(sizes: number[]): Section {
  return { name: NAME, run: (context) => runCacheSection(context, sizes) };
}

export const cacheSection = cacheSectionFor([10_000, 100_000]);

async function runCacheSection(
  { options, log }: SectionContext,
  sizes: number[],
): Promise<SectionReport> {
  const rows: Row[] = [];
  const wanted = (store: string) => options.cacheStores?.includes(store) ?? true;
  const stores: [string, () => Promise<Database>][] = [];
  if (wanted("pgvector")) stores.push(["pglite + pgvector", () => openPglite(undefined)]);
  if (wanted("scan")) {
    stores.push(["pglite without pgvector", () => openPglite(undefined, { vector: false })]);
  }
  let dropPostgres: (() => Promise<void>) | undefined;
  if (options.postgresUrl && wanted("postgres")) {
    const server = options.postgresUrl;
    stores.push([
      "postgres",
      async () => {
        // Never the server's own database: a fresh one, dropped afterwards.
        const fresh = await createFreshDatabase(server);
        dropPostgres = fresh.drop;
        return openPostgres({ connectionString: fresh.url });
      },
    ]);
  }
  for (const [name, open] of stores) {
    const db = await open();
    try {
      rows.push(...(await lookupCosts(name, db, sizes, log)));
    } finally {
      await db.close();
      if (name === "postgres") await dropPostgres?.();
    }
  }
  const latency: Awaited<ReturnType<typeof hitVersusMiss>> = [];
  const embedded = await openPglite(undefined);
  try {
    latency.push(...(await hitVersusMiss(log, "pglite", embedded)));
  } finally {
    await embedded.close();
  }
  if (options.postgresUrl) {
    const fresh = await createFreshDatabase(options.postgresUrl);
    const db = await openPostgres({ connectionString: fresh.url });
    try {
      latency.push(...(await hitVersusMiss(log, "postgres", db)));
    } finally {
      await db.close();
      await fresh.drop();
    }
  }
  const [off, miss, hit] = latency;
  return {
    name: NAME,
    table: [
      [
        "store",
        "search",
        "entries",
        "seed s",
        "index s",
        "exact p50 ms",
        "semantic p50 ms",
        "semantic p95 ms",
      ],
      ...rows.map((r) => [
        r.store,
        r.search,
        String(r.entries),
        r.seedSeconds.toFixed(1),
        r.indexSeconds === null ? "-" : r.indexSeconds.toFixed(1),
        ms(r.exactP50),
        ms(r.semanticP50),
        ms(r.semanticP95),
      ]),
      ["request", "", "", "", "", "p50 ms", "p95 ms", "CPU ms p50"],
      ...latency.map((l) => [l.label, "", "", "", "", ms(l.p50), ms(l.p95), ms(l.cpuP50 ?? null)]),
    ],
    ratios: {
      hit_over_off_p50: hit?.p50 && off?.p50 ? hit.p50 / off.p50 : null,
      hit_over_off_cpu_p50: hit?.cpuP50 && off?.cpuP50 ? hit.cpuP50 / off.cpuP50 : null,
      miss_minus_off_p50_ms: miss?.p50 && off?.p50 ? miss.p50 - off.p50 : null,
    },
    targets: [],
    notes: [
      `${DIMS}-dimension vectors; all entries of one customer and model scope (a scan's worst case)`,
      "hit vs miss: 200 rounds of an off, a miss and a hit call, interleaved, sequential, through an in-process gateway (on PGlite, then on Postgres with BENCH_POSTGRES_URL) to an in-process fake upstream that answers at once (a real model's latency is not in the miss); CPU is this process's (gateway, store and fake upstream) per call",
    ],
    data: { rows, latency },
  };
}
