import type { PGlite } from "@electric-sql/pglite";

/**
 * Diagnostic: with PGLITE_MEMORY_LOG_SECS=<n>, the PGlite worker prints one JSON line to stderr
 * every n seconds: its own V8 heap, PGlite's WebAssembly memory, Postgres' memory contexts and
 * the tables' live and dead tuples (docs/benchmarks.md, "Issue 13, third pass: the embedded
 * store's memory").
 */
export function startMemoryLog(db: PGlite, everySecs: number): void {
  const started = Date.now();
  const mib = (n: number): number => Math.round((n / 2 ** 20) * 10) / 10;
  const log = async (): Promise<void> => {
    const m = process.memoryUsage();
    const contexts = await db.query<{ name: string; total: string; used: string; n: string }>(
      `SELECT name, sum(total_bytes)::text AS total, sum(used_bytes)::text AS used, count(*)::text AS n
         FROM pg_backend_memory_contexts GROUP BY name ORDER BY sum(total_bytes) DESC LIMIT 8`,
    );
    const all = await db.query<{ total: string }>(
      "SELECT sum(total_bytes)::text AS total FROM pg_backend_memory_contexts",
    );
    const tables = await db.query<{ relname: string; live: string; dead: string; size: string }>(
      `SELECT relname, n_live_tup::text AS live, n_dead_tup::text AS dead,
              pg_total_relation_size(relid)::text AS size
         FROM pg_stat_user_tables ORDER BY pg_total_relation_size(relid) DESC LIMIT 5`,
    );
    process.stderr.write(
      `pglite-mem ${JSON.stringify({
        at: Math.round((Date.now() - started) / 1000),
        rss: mib(m.rss),
        workerHeapUsed: mib(m.heapUsed),
        workerHeapTotal: mib(m.heapTotal),
        workerExternal: mib(m.external),
        wasm: mib(db.Module.HEAPU8.buffer.byteLength),
        pgContexts: mib(Number(all.rows[0]?.total ?? 0)),
        top: contexts.rows.map((r) => `${r.name}:${mib(Number(r.total))}/${r.n}`).join(" "),
        tables: tables.rows
          .map((r) => `${r.relname}:${r.live}/${r.dead}/${mib(Number(r.size))}`)
          .join(" "),
      })}\n`,
    );
  };
  setInterval(() => {
    log().catch((err: unknown) => process.stderr.write(`pglite-mem failed: ${String(err)}\n`));
  }, everySecs * 1000).unref();
}
