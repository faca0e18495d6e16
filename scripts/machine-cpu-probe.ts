/**
 * Where the whole machine's CPU goes while wrk drives the bare proxy and each gateway (JSON chat,
 * CONNS connections, default 50), process by process, per request: the hop (proxy or gateway) and
 * its event loop, the fake upstream, the local Postgres server's processes (Postgres targets
 * only), and the rest (wrk itself, the kernel's network work, anything else running). Also how
 * long the hop's event loop waited for a core while it was ready to run (the run queue), and how
 * idle the machine was. Linux only (/proc/stat, /proc/<pid>/task/<tid>/schedstat).
 *
 *   npx tsx scripts/machine-cpu-probe.ts <embedded|postgres> [seconds=5] [rounds=3]
 *
 * On these 2-core machines wrk, the upstream and the store's server share the cores with the
 * gateway, so the throughput ratio is set by the hop's event loop and the core time it gets
 * (docs/benchmarks.md, eleventh pass).
 */
import { readFile } from "node:fs/promises";
import { cpus } from "node:os";
import { median } from "../bench/load/percentile.js";
import { eventLoopSchedule, threadCpuByName } from "../bench/load/thread-cpu.js";
import { ensureWrk, runWrk } from "../bench/load/wrk.js";
import {
  chatSpec,
  startWrkTargets,
  type StoreName,
  type WrkTarget,
} from "../bench/sections/wrk-targets.js";

const store = (process.argv[2] ?? "embedded") as StoreName;
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 3);
const connections = Number(process.env.CONNS ?? 50);
const postgresUrl =
  process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres";

/** CPU µs used so far by every thread of `pid` (0 when it is gone). */
async function processCpuUs(pid: number): Promise<number> {
  let total = 0;
  for (const us of (await threadCpuByName(pid))?.values() ?? []) total += us;
  return total;
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
async function machineJiffies(): Promise<{ busy: number; total: number }> {
  const [, ...values] = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}

/** Readings taken before and after a run; `after - before` of each is what the run used. */
async function reading(target: WrkTarget, hopPid: number, upstreamPid: number) {
  return {
    hopUs: await processCpuUs(hopPid),
    loop: await eventLoopSchedule(hopPid),
    upstreamUs: await processCpuUs(upstreamPid),
    storeServerUs: (await target.storeServerCpuUs?.()) ?? 0,
    machine: await machineJiffies(),
  };
}

const wrk = await ensureWrk((line) => console.log(line));
if (wrk === undefined) throw new Error("wrk is not installed");
const targets = await startWrkTargets((line) => console.log(line), {
  postgresUrl,
  gatewayProfileDir: undefined,
  stores: [store],
});
const cores = cpus().length;
try {
  const upstreamPid = targets.upstreamPid;
  if (upstreamPid === undefined) throw new Error("the fake upstream has no process id");
  const rows = new Map<string, Map<string, number[]>>();
  const measure = async (target: WrkTarget) => {
    const pid = target.pid;
    if (pid === undefined) throw new Error(`${target.name}: no pid`);
    const spec = chatSpec(target, connections);
    await runWrk(wrk, { ...spec, seconds: 1 });
    const before = await reading(target, pid, upstreamPid);
    const run = await runWrk(wrk, { ...spec, seconds });
    const after = await reading(target, pid, upstreamPid);
    const perRequest = (us: number) => us / Math.max(1, run.requests);
    const machineShare =
      (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total);
    const machineUs = perRequest(machineShare * cores * run.seconds * 1e6);
    const hop = perRequest(after.hopUs - before.hopUs);
    const upstream = perRequest(after.upstreamUs - before.upstreamUs);
    const storeServer = perRequest(after.storeServerUs - before.storeServerUs);
    const row = rows.get(target.name) ?? new Map<string, number[]>();
    const add = (name: string, value: number) => row.set(name, [...(row.get(name) ?? []), value]);
    add("req/s", run.requestsPerSecond);
    add("machine busy, % of all cores", 100 * machineShare);
    add("machine CPU us/req", machineUs);
    add("  hop (proxy or gateway)", hop);
    const loop =
      before.loop && after.loop
        ? {
            onCoreUs: after.loop.onCoreUs - before.loop.onCoreUs,
            waitingUs: after.loop.waitingUs - before.loop.waitingUs,
          }
        : undefined;
    if (loop) add("    its event loop", perRequest(loop.onCoreUs));
    add("  fake upstream", upstream);
    if (target.storeServerCpuUs) add("  Postgres server", storeServer);
    add("  the rest (wrk, kernel)", machineUs - hop - upstream - storeServer);
    if (loop) {
      add("event loop waiting for a core us/req", perRequest(loop.waitingUs));
      add("event loop on a core, % of the run", (100 * loop.onCoreUs) / (run.seconds * 1e6));
    }
    rows.set(target.name, row);
  };
  for (let round = 0; round < rounds; round++) {
    const order = [targets.baseline, ...targets.gateways];
    for (const target of round % 2 === 0 ? order : order.reverse()) await measure(target);
  }
  for (const [name, row] of rows) {
    console.log(`\n${name} (median of ${rounds} x ${seconds} s, ${cores} cores)`);
    for (const [label, values] of row)
      console.log(`  ${label.padEnd(40)} ${median(values).toFixed(1).padStart(9)}`);
  }
} finally {
  await targets.stop();
}
