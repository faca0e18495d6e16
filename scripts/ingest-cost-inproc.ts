/**
 * What appending audit records to the embedded store costs, before and after a change, measured
 * batch by batch: each tree's AuditRepository appends to its own PGlite, opened in this thread
 * (not in the store's worker), the trees taking turns every batch, and the process's CPU around
 * each append is summed per tree. So the figure is the request thread's part (chaining, encoding)
 * plus PGlite's, without the worker's messages; and because the trees alternate every few
 * milliseconds, the machine's swings (rounds of thousands of records at a time swing by a third
 * on these machines: scripts/ingest-cost.ts) fall on both alike.
 *
 *   npx tsx scripts/ingest-cost-inproc.ts <before-tree> [batches=300] [batch=200]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { median } from "../bench/load/percentile.js";
import { GUARD_REFUSED } from "../dataplane/store/copy-guard.js";
import {
  copyStatement,
  type Database,
  type Queryable,
  sqlStateOf,
  type SqlParam,
} from "../dataplane/store/database.js";
import { appenderFor, cpuUs, type IngestTree, loadTree, treeRecord } from "./ingest-trees.js";

const [beforeTree, batchesArg, batchArg] = process.argv.slice(2);
if (!beforeTree) {
  console.error("usage: tsx scripts/ingest-cost-inproc.ts <before-tree> [batches] [batch]");
  process.exit(2);
}
const batches = Number(batchesArg ?? 300);
const batch = Number(batchArg ?? 200);

/** A COPY's data as either tree passes it: text pieces (before binary COPY) or CopyData. */
type AnyCopyData =
  readonly string[] | { format: "text" | "binary"; pieces: readonly (string | Uint8Array)[] };

/** The store's interface over a PGlite in this thread (what pglite-database.ts does in a worker). */
function queryable(on: Pick<PGlite | Transaction, "query" | "exec">): Queryable {
  return {
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      return (await on.query<Row>(text, [...params])).rows;
    },
    async exec(text: string) {
      await on.exec(text);
    },
    async copyRows(table, columns, rows: AnyCopyData, guard) {
      const pieces = "format" in rows ? rows.pieces : rows;
      const copy = copyStatement(
        table,
        columns,
        "format" in rows ? rows.format : "text",
        "'/dev/blob'",
      );
      try {
        await on.exec(guard === undefined ? copy : `${guard};\n${copy}`, {
          blob: new Blob([...pieces]),
        });
        return true;
      } catch (err) {
        if (sqlStateOf(err) === GUARD_REFUSED) return false;
        throw err;
      }
    },
  };
}

/** A fresh PGlite in this thread, as the store's interface, with the tree's migrations applied. */
async function openInThread(
  tree: IngestTree,
): Promise<{ db: Database; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "evident-ingest-inproc-"));
  const pg = await PGlite.create(`file://${dir}`, {
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  });
  const direct = queryable(pg);
  const db: Database = {
    ...direct,
    kind: "pglite",
    transaction: (fn) => pg.transaction((tx) => fn(queryable(tx))),
    withSession: (fn) => fn(direct),
    ping: async () => true,
    close: () => pg.close(),
  };
  await tree.migrate(db);
  return {
    db,
    cleanup: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const trees = [await loadTree("after", "."), await loadTree("before", beforeTree)];
const opened = await Promise.all(
  trees.map(async (tree) => {
    const { db, cleanup } = await openInThread(tree);
    return { tree, append: appenderFor(tree, db), cleanup };
  }),
);
const spent = new Map<string, number>();
const ratios: number[] = [];
try {
  const makeBatch = (tree: IngestTree) => Array.from({ length: batch }, () => treeRecord(tree));
  for (let i = 0; i < 10; i++) for (const t of opened) await t.append(makeBatch(t.tree));
  for (let i = 0; i < batches; i++) {
    const costs = new Map<string, number>();
    for (const { tree, append } of i % 2 === 0 ? opened : [...opened].reverse()) {
      const records = makeBatch(tree);
      const start = cpuUs();
      await append(records);
      const cost = cpuUs() - start;
      costs.set(tree.name, cost);
      spent.set(tree.name, (spent.get(tree.name) ?? 0) + cost);
    }
    ratios.push((costs.get("after") ?? NaN) / (costs.get("before") ?? NaN));
  }
} finally {
  for (const { cleanup } of opened) await cleanup();
}
const perRecord = (name: string) => ((spent.get(name) ?? NaN) / (batches * batch)).toFixed(2);
console.log(
  `embedded store in this thread, ${batches} batches of ${batch} per tree, taking turns: CPU us per record before ${perRecord("before")}, after ${perRecord("after")}`,
);
console.log(
  `  after / before: of the sums ${((spent.get("after") ?? NaN) / (spent.get("before") ?? NaN)).toFixed(3)}, median of the batches ${median(ratios).toFixed(3)}`,
);
