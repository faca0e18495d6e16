/**
 * What the ingestion scripts (ingest-cost.ts, ingest-cost-inproc.ts) share: a checkout's audit
 * code loaded by path (the "before" tree is another checkout), the bench's chat record made with
 * that tree's own id generators, appending the way the tree's repository does, and CPU time.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PendingAuditRecord } from "../dataplane/store/audit-repository.js";
import type { Database } from "../dataplane/store/database.js";

interface Repo {
  append?: (db: Database, batch: PendingAuditRecord[]) => Promise<void>;
  appendBatch: (tx: unknown, batch: PendingAuditRecord[]) => Promise<void>;
}

export interface IngestTree {
  name: string;
  recordId: () => string;
  requestId: () => string;
  repo: (db: Database) => Repo;
  migrate: (db: Database) => Promise<unknown>;
  openPglite: (dir: string) => Promise<Database>;
  openPostgres: (o: { connectionString: string }) => Database;
}

export async function loadTree(name: string, root: string): Promise<IngestTree> {
  const at = (file: string) => import(pathToFileURL(resolve(root, file)).href);
  const repoModule = await at("dataplane/store/audit-repository.ts");
  const migrateModule = await at("dataplane/store/migrate.ts");
  const pgliteModule = await at("dataplane/store/pglite-database.ts");
  const postgresModule = await at("dataplane/store/postgres-database.ts");
  const recordIdModule = await at("dataplane/audit/audit-record-id.ts");
  const requestIdModule = await at("dataplane/adapters/http/request-id.ts");
  return {
    name,
    recordId: recordIdModule.newAuditRecordId,
    requestId: () => requestIdModule.requestIdFrom(undefined, false),
    repo: (db) => new repoModule.AuditRepository(db) as Repo,
    migrate: migrateModule.migrate,
    openPglite: (dir) => pgliteModule.openPglite(dir),
    openPostgres: postgresModule.openPostgres,
  };
}

/**
 * Appends batches through one of the tree's repositories, as the ingester does (the repository
 * remembers the chain heads it wrote; older trees have only appendBatch, in a transaction).
 */
export function appenderFor(
  tree: IngestTree,
  db: Database,
): (batch: PendingAuditRecord[]) => Promise<void> {
  const repo = tree.repo(db);
  return async (batch) => {
    if (repo.append) await repo.append(db, batch);
    else await db.transaction((tx) => repo.appendBatch(tx, batch));
  };
}

/** The bench's chat record, with ids from the tree's own generators. */
export const treeRecord = (tree: IngestTree): PendingAuditRecord =>
  benchChatRecord(tree.recordId(), tree.requestId());

/** This process's CPU time (every thread), µs. */
export const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * An audit record like the bench's JSON chat call's (default content mode: no content), with the
 * given ids.
 */
export function benchChatRecord(id: string, requestId: string): PendingAuditRecord {
  return {
    fields: {
      id,
      customer_id: "default",
      occurred_at: new Date().toISOString(),
      kind: "inference",
      request_id: requestId,
      key_id: "key_DKeZ4OvFItI76e1KBR5c00bc",
      action: "chat.completions",
      subject: "bench-chat",
      model: "bench-chat",
      backend: "dep_K4GkHgJpNtIyVwIanVZgj5Zd",
      route: {
        model_version: "1",
        candidates: ["dep_K4GkHgJpNtIyVwIanVZgj5Zd"],
        chosen: "dep_K4GkHgJpNtIyVwIanVZgj5Zd",
      },
      classification: "public",
      verdicts: [],
      usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, source: "upstream" },
      cost_usd: 0.000017,
      latency_ms: 3,
      status: 200,
      error_code: null,
      outcome: "completed",
      request_sha256: "16fbd4f0f10453570e7d88cf2203be0faa9b7114e366a3225c579bd48abb9592",
      response_sha256: "e46bdac7d5bdbbaef4989aa21778bef5a6def358c8c111f36d25c4fbccfb701a",
      content_sha256: null,
      details: null,
    },
    content: null,
  };
}
