/**
 * What one audit record costs to ingest into the store, before and after a change: CPU of this
 * whole process (every thread: the embedded store's worker too) per record, for batches of a
 * given size written the way the ingester writes them, the trees' code taking turns (rounds
 * alternate; a fresh store for each tree, which keeps growing from round to round, so later rounds
 * show what a record costs in a larger table). Each tree's records carry ids (record id, request
 * id) made by that tree's own generators. On Postgres, the local server's CPU is printed too.
 *
 *   npx tsx scripts/ingest-cost.ts <before-tree> <embedded|postgres> [batch=40] [rounds=6] [n=4000]
 *
 * Postgres: BENCH_POSTGRES_URL (default the local server), a fresh database per tree.
 * CUSTOMERS=n spreads each batch's records over n customers' chains (default 1: the bench's one).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "../bench/load/percentile.js";
import { createFreshDatabase } from "../bench/processes/fresh-database.js";
import { processesCpuUs } from "../bench/processes/local-server-cpu.js";
import { appenderFor, cpuUs, type IngestTree, loadTree, treeRecord } from "./ingest-trees.js";
import type { Database } from "../dataplane/store/database.js";

const [beforeTree, store = "embedded", batchArg, roundsArg, nArg] = process.argv.slice(2);
if (!beforeTree || (store !== "embedded" && store !== "postgres")) {
  console.error(
    "usage: tsx scripts/ingest-cost.ts <before-tree> <embedded|postgres> [batch] [rounds] [n]",
  );
  process.exit(2);
}
const batch = Number(batchArg ?? 40);
const rounds = Number(roundsArg ?? 6);
const perRound = Number(nArg ?? 4000);
const customers = Math.max(1, Number(process.env.CUSTOMERS ?? 1));
const postgresUrl =
  process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres";

const mainThread = new Map<string, number[]>();
const serverCpu = new Map<string, number[]>();
const push = (into: Map<string, number[]>, name: string, value: number): void => {
  into.set(name, [...(into.get(name) ?? []), value]);
};
const threadUs = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};

async function measure(tree: IngestTree, db: Database, n: number): Promise<number> {
  const batches = Array.from({ length: Math.ceil(n / batch) }, () =>
    Array.from({ length: batch }, (_, i) => {
      const record = treeRecord(tree);
      const customer = customers === 1 ? record.fields.customer_id : `cus_${i % customers}`;
      return { ...record, fields: { ...record.fields, customer_id: customer } };
    }),
  );
  const append = appenderFor(tree, db);
  const startServer = store === "postgres" ? await processesCpuUs("postgres") : undefined;
  const start = cpuUs();
  const startMain = threadUs();
  for (const b of batches) await append(b);
  const records = batches.length * batch;
  const spent = (cpuUs() - start) / records;
  push(mainThread, tree.name, (threadUs() - startMain) / records);
  const endServer = startServer === undefined ? undefined : await processesCpuUs("postgres");
  if (startServer !== undefined && endServer !== undefined)
    push(serverCpu, tree.name, (endServer - startServer) / records);
  return spent;
}

const trees = [await loadTree("after", "."), await loadTree("before", beforeTree)];
const opened: { tree: IngestTree; db: Database; cleanup: () => Promise<void> }[] = [];
for (const tree of trees) {
  if (store === "embedded") {
    const dir = await mkdtemp(join(tmpdir(), "evident-ingest-cost-"));
    const db = await tree.openPglite(dir);
    opened.push({ tree, db, cleanup: () => rm(dir, { recursive: true, force: true }) });
  } else {
    const fresh = await createFreshDatabase(postgresUrl);
    const db = tree.openPostgres({ connectionString: fresh.url });
    opened.push({ tree, db, cleanup: () => fresh.drop() });
  }
}
const results = new Map<string, number[]>();
try {
  for (const { tree, db } of opened) {
    await tree.migrate(db);
    await measure(tree, db, 1000); // warm-up
  }
  mainThread.clear();
  serverCpu.clear();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? opened : [...opened].reverse();
    for (const { tree, db } of order) {
      results.set(tree.name, [
        ...(results.get(tree.name) ?? []),
        await measure(tree, db, perRound),
      ]);
    }
  }
} finally {
  for (const { db, cleanup } of opened) {
    await db.close();
    await cleanup();
  }
}
const after = results.get("after") ?? [];
const before = results.get("before") ?? [];
console.log(
  `${store}, batches of ${batch} (${customers} customer${customers === 1 ? "" : "s"}): CPU us per record (all threads of this process), median of ${rounds} rounds of ${perRound}`,
);
console.log(`  before ${median(before).toFixed(1)}   after ${median(after).toFixed(1)}`);
const main = (name: string) => median(mainThread.get(name) ?? []).toFixed(1);
console.log(`  of which the main thread: before ${main("before")}   after ${main("after")}`);
console.log(`  after/before ${median(after.map((a, i) => a / (before[i] as number))).toFixed(3)}`);
const rounded = (values: number[] = []) => values.map((v) => v.toFixed(1)).join(" ");
console.log(`  by round (the table growing): before ${rounded(before)}   after ${rounded(after)}`);
if (serverCpu.size > 0) {
  const server = (name: string) => median(serverCpu.get(name) ?? []).toFixed(1);
  console.log(
    `  Postgres server CPU us per record: before ${server("before")}   after ${server("after")}`,
  );
  console.log(
    `  by round: before ${rounded(serverCpu.get("before"))}   after ${rounded(serverCpu.get("after"))}`,
  );
}
