/**
 * Where the whole machine's CPU goes while wrk drives the bare proxy and each gateway (JSON chat,
 * CONNS connections, default 50), process by process, per request: the hop (proxy or gateway) and
 * its event loop's thread, the fake upstream, the local Postgres server's processes (Postgres
 * targets only), and the rest (wrk itself, the kernel's network work, anything else running). Also
 * how long the hop's event loop waited for a core while it was ready to run (the run queue), and
 * how idle the machine was. Linux only (/proc/stat, /proc/<pid>/task/<tid>/schedstat).
 *
 *   npx tsx scripts/machine-cpu-probe.ts <embedded|postgres> [seconds=5] [rounds=3]
 *
 * On these 2-core machines wrk, the upstream and the store's server share the cores with the
 * gateway, so the throughput ratio is set by the machine's whole CPU per request as much as by the
 * event loop's (docs/benchmarks.md, eleventh pass).
 */
import { readdir, readFile } from "node:fs/promises";
import { cpus } from "node:os";
import { chatBody, FAST_MODEL } from "../bench/bench-models.js";
import { median } from "../bench/load/percentile.js";
import { ensureWrk, runWrk } from "../bench/load/wrk.js";
import { startWrkTargets, type StoreName, type WrkTarget } from "../bench/sections/wrk-targets.js";

const store = (process.argv[2] ?? "embedded") as StoreName;
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 3);
const connections = Number(process.env.CONNS ?? 50);
const postgresUrl =
  process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres";

/** ns on CPU and ns waiting in the run queue, from a schedstat file; zeros when gone. */
async function schedstat(path: string): Promise<{ run: number; wait: number }> {
  try {
    const [run = 0, wait = 0] = (await readFile(path, "utf8")).split(" ").map(Number);
    return { run, wait };
  } catch {
    return { run: 0, wait: 0 };
  }
}

/** Summed over every thread of `pid`; `onlyThread` restricts it to threads of that name. */
async function processSched(
  pid: number,
  onlyThread?: string,
): Promise<{ run: number; wait: number }> {
  const total = { run: 0, wait: 0 };
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tids) {
    if (onlyThread !== undefined) {
      const comm = await readFile(`/proc/${pid}/task/${tid}/comm`, "utf8").catch(() => "");
      if (comm.trim() !== onlyThread) continue;
    }
    const s = await schedstat(`/proc/${pid}/task/${tid}/schedstat`);
    total.run += s.run;
    total.wait += s.wait;
  }
  return total;
}

/** Process ids whose command line matches `pattern`. */
async function pidsMatching(pattern: RegExp): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmd = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (pattern.test(cmd.replace(/\0/g, " "))) out.push(Number(entry));
  }
  return out;
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
async function machineJiffies(): Promise<{ busy: number; total: number }> {
  const [, ...values] = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}

interface Snapshot {
  hop: number;
  hopMain: { run: number; wait: number };
  upstream: number;
  postgres: number;
  machine: { busy: number; total: number };
}

async function snapshot(hopPid: number, upstreamPid: number, withPostgres: boolean) {
  const postgres = withPostgres ? await pidsMatching(/^postgres/) : [];
  let postgresRun = 0;
  for (const pid of postgres) postgresRun += (await processSched(pid)).run;
  const snap: Snapshot = {
    hop: (await processSched(hopPid)).run,
    hopMain: await processSched(hopPid, "MainThread"),
    upstream: (await processSched(upstreamPid)).run,
    postgres: postgresRun,
    machine: await machineJiffies(),
  };
  return snap;
}

const wrk = await ensureWrk((line) => console.log(line));
if (wrk === undefined) throw new Error("wrk is not installed");
const targets = await startWrkTargets((line) => console.log(line), {
  postgresUrl,
  gatewayProfileDir: undefined,
  stores: [store],
});
const [upstreamPid] = await pidsMatching(/upstream-process\.ts/);
if (upstreamPid === undefined) throw new Error("the fake upstream's process was not found");
const cores = cpus().length;
try {
  const rows = new Map<string, Map<string, number[]>>();
  const measure = async (target: WrkTarget) => {
    const pid = target.pid;
    if (pid === undefined) throw new Error(`${target.name}: no pid`);
    const spec = {
      url: `${target.base}/chat/completions`,
      connections,
      headers: target.headers,
      body: chatBody(FAST_MODEL, false),
    };
    await runWrk(wrk, { ...spec, seconds: 1 });
    const withPostgres = target.name.endsWith("@postgres");
    const before = await snapshot(pid, upstreamPid, withPostgres);
    const run = await runWrk(wrk, { ...spec, seconds });
    const after = await snapshot(pid, upstreamPid, withPostgres);
    const n = Math.max(1, run.requests);
    const perRequest = (ns: number) => ns / 1000 / n;
    const machineShare =
      (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total);
    const machineUs = (machineShare * cores * run.seconds * 1e6) / n;
    const hop = perRequest(after.hop - before.hop);
    const upstream = perRequest(after.upstream - before.upstream);
    const postgres = perRequest(after.postgres - before.postgres);
    const row = rows.get(target.name) ?? new Map<string, number[]>();
    const add = (name: string, value: number) => row.set(name, [...(row.get(name) ?? []), value]);
    add("req/s", run.requestsPerSecond);
    add("machine busy, % of all cores", 100 * machineShare);
    add("machine CPU us/req", machineUs);
    add("  hop (proxy or gateway)", hop);
    add("    its event loop", perRequest(after.hopMain.run - before.hopMain.run));
    add("  fake upstream", upstream);
    if (withPostgres) add("  Postgres server", postgres);
    add("  the rest (wrk, kernel)", machineUs - hop - upstream - postgres);
    add(
      "event loop waiting for a core us/req",
      perRequest(after.hopMain.wait - before.hopMain.wait),
    );
    add(
      "event loop on a core, % of the run",
      (100 * (after.hopMain.run - before.hopMain.run)) / (run.seconds * 1e9),
    );
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
