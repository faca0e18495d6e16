/**
 * Where a gateway's CPU per request goes, thread by thread (the main event loop, the embedded
 * store's worker, libuv's pool, V8's helpers), next to the bare proxy's, read from
 * /proc/<pid>/task/<tid>/schedstat (ns on CPU) around a wrk run (JSON chat; CONNS connections,
 * default 50). Linux only. Output: CPU µs per request of each thread name, for each target.
 *
 *   npx tsx scripts/store-cost-probe.ts <embedded|postgres> [seconds=5] [rounds=3]
 *
 * Postgres: BENCH_POSTGRES_URL (default the local server); its server processes are not counted
 * here (they are other processes), so the Postgres row is the gateway's share only.
 */
import { median } from "../bench/load/percentile.js";
import { threadCpuByName } from "../bench/load/thread-cpu.js";
import { ensureWrk, runWrk } from "../bench/load/wrk.js";
import { chatSpec, startWrkTargets, type StoreName } from "../bench/sections/wrk-targets.js";

const store = (process.argv[2] ?? "embedded") as StoreName;
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 3);
const connections = Number(process.env.CONNS ?? 50);

const wrk = await ensureWrk((line) => console.log(line));
if (wrk === undefined) throw new Error("wrk is not installed");
const targets = await startWrkTargets((line) => console.log(line), {
  postgresUrl:
    process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres",
  gatewayProfileDir: process.env.PROFILE_DIR,
  stores: [store],
});
try {
  const results = new Map<string, Map<string, number[]>>();
  for (const target of [targets.baseline, ...targets.gateways]) {
    const pid = target.pid;
    if (pid === undefined) throw new Error("no pid");
    const spec = chatSpec(target, connections);
    await runWrk(wrk, { ...spec, seconds: 1 });
    const perThread = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      const before = await threadCpuByName(pid);
      const run = await runWrk(wrk, { ...spec, seconds });
      await new Promise((r) => setTimeout(r, 300)); // let the ingester finish the tail
      const after = await threadCpuByName(pid);
      if (before === undefined || after === undefined) throw new Error("no /proc for the process");
      let total = 0;
      for (const [name, us] of after) {
        const per = (us - (before.get(name) ?? 0)) / Math.max(1, run.requests);
        total += per;
        perThread.set(name, [...(perThread.get(name) ?? []), per]);
      }
      perThread.set("(total)", [...(perThread.get("(total)") ?? []), total]);
      perThread.set("(req/s)", [...(perThread.get("(req/s)") ?? []), run.requestsPerSecond]);
    }
    results.set(target.name, perThread);
  }
  for (const [name, perThread] of results) {
    console.log(`\n${name}: CPU µs per request by thread (median of ${rounds} x ${seconds} s)`);
    const rows = [...perThread].sort((a, b) => median(b[1]) - median(a[1]));
    for (const [thread, values] of rows) {
      if (median(values) < 0.5) continue;
      console.log(`  ${thread.padEnd(20)} ${median(values).toFixed(1).padStart(8)}`);
    }
  }
} finally {
  await targets.stop();
}
