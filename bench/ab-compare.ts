/**
 * Before/after of the gateway, interleaved in one run (a loaded machine swings single runs by
 * +-30%; the ratio of two runs taken a second apart holds).
 *
 *   npx tsx bench/ab-compare.ts <before-tree> <embedded|postgres> [rounds=12] [seconds=1] [--latency]
 *
 * <before-tree> is another checkout of this repository (e.g. `git archive <commit> | tar -x -C
 * /tmp/before`, with node_modules and proto/gen linked or copied in). Both trees' wrk targets are
 * started (each its own upstream, bare proxy and fresh store); every round runs each target once,
 * order reversed every other round.
 * - Default (CPU and throughput): each gateway per kind (JSON and SSE, wrk -c50). Printed: the
 *   median CPU us per request and req/s of each target, and the median over rounds of after /
 *   before of the same round (and each round's, in brackets).
 * - `--latency`: JSON at wrk -c1 against direct (the upstream itself), the bare proxy and each
 *   gateway. Printed: the median over rounds of each target's p50/p90/p99/p99.9 and of its
 *   added p50/p99 over direct in the same round and its CPU per request (at c=1 that includes
 *   whatever the process spends while it waits), and after - before of the same round.
 * Postgres: BENCH_POSTGRES_URL (default the local server).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { median } from "./load/percentile.js";
import { ensureWrk, type WrkResult } from "./load/wrk.js";
import { measure, type Kind, type Run } from "./sections/wrk-run.js";
import { startWrkTargets, type StoreName, type WrkTarget } from "./sections/wrk-targets.js";

type Start = typeof startWrkTargets;

const flags = process.argv.slice(2).filter((a) => a.startsWith("--"));
const [beforeTree, storeArg, roundsArg, secondsArg] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"));
if (!beforeTree || (storeArg !== "embedded" && storeArg !== "postgres")) {
  console.error(
    "usage: tsx bench/ab-compare.ts <before-tree> <embedded|postgres> [rounds] [s] [--latency]",
  );
  process.exit(2);
}
const latencyMode = flags.includes("--latency");
const store: StoreName = storeArg;
const rounds = Number(roundsArg ?? 12);
const seconds = Number(secondsArg ?? 1);
const options = {
  postgresUrl:
    process.env.BENCH_POSTGRES_URL || "postgres://postgres:postgres@127.0.0.1:5432/postgres",
  gatewayProfileDir: undefined,
  stores: [store],
};

const wrk = await ensureWrk((line) => console.log(line));
if (wrk === undefined) throw new Error("wrk is not installed");
const beforeModule = pathToFileURL(resolve(beforeTree, "bench/sections/wrk-targets.ts")).href;
const startBefore = ((await import(beforeModule)) as { startWrkTargets: Start }).startWrkTargets;
const after = await startWrkTargets((line) => console.log(line), options);
const before = await startBefore((line) => console.log(line), options);
const gateways: WrkTarget[] = [
  ...after.gateways,
  ...before.gateways.map((g) => ({ ...g, name: `before:${g.name}` })),
];

/** One wrk run of `kind` (JSON or SSE at -c50, JSON latency at -c1), with the target's CPU. */
const drive = (target: WrkTarget, kind: Kind): Promise<Run> =>
  measure(wrk as string, target, kind, seconds);

const push = <T>(map: Map<string, T[]>, key: string, value: T): void => {
  map.set(key, [...(map.get(key) ?? []), value]);
};
const ms = (n: number): string => n.toFixed(3).padStart(7);

/** Each key's median, and the median over rounds of after / before of the same round. */
function printPaired(values: Map<string, number[]>, label: string, digits: number): void {
  for (const [key, mine] of values) {
    const line = `${key.padEnd(40)} ${label} median ${median(mine).toFixed(digits).padStart(7)}`;
    const previous = values.get(`before:${key}`);
    const paired = previous ? mine.map((v, i) => v / (previous[i] as number)) : [];
    const rounds = paired.map((r) => r.toFixed(2)).join(" ");
    console.log(
      paired.length > 0 ? `${line}   after/before ${median(paired).toFixed(3)} (${rounds})` : line,
    );
  }
}

async function compareCpu(targets: WrkTarget[]): Promise<void> {
  const cpu = new Map<string, number[]>();
  const rps = new Map<string, number[]>();
  for (const t of targets) for (const kind of ["json", "sse"] as const) await drive(t, kind);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const kind of ["json", "sse"] as const)
      for (const t of order) {
        const run = await drive(t, kind);
        const name = `${t.name} ${kind.toUpperCase()}`;
        push(cpu, name, run.cpuUsPerRequest ?? NaN);
        push(rps, name, run.requestsPerSecond);
      }
    console.log(`round ${round + 1}/${rounds} done`);
  }
  printPaired(cpu, "CPU us/req", 0);
  printPaired(rps, "req/s", 0);
}

async function compareLatency(targets: WrkTarget[]): Promise<void> {
  const runs = new Map<string, Run[]>();
  for (const t of targets) await drive(t, "latency");
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) push(runs, t.name, await drive(t, "latency"));
    console.log(`round ${round + 1}/${rounds} done`);
  }
  const direct = runs.get("direct") ?? [];
  const added = (rs: WrkResult[], pick: (r: WrkResult) => number, base: WrkResult[]) =>
    median(rs.map((r, i) => pick(r) - pick(base[i] as WrkResult)));
  console.log(
    `${"target (wrk -c1, ms, medians over rounds)".padEnd(34)}    p50     p90     p99   p99.9  +p50 direct +p99 direct  CPU us/req`,
  );
  for (const [name, rs] of runs) {
    const cols = [
      (r: WrkResult) => r.p50Ms,
      (r: WrkResult) => r.p90Ms,
      (r: WrkResult) => r.p99Ms,
      (r: WrkResult) => r.p999Ms,
    ].map((pick) => ms(median(rs.map(pick))));
    const p50 = added(rs, (r) => r.p50Ms, direct);
    const p99 = added(rs, (r) => r.p99Ms, direct);
    const cpu = median(rs.map((r) => r.cpuUsPerRequest ?? NaN));
    console.log(
      `${name.padEnd(34)} ${cols.join(" ")} ${ms(p50)}     ${ms(p99)}  ${cpu.toFixed(0).padStart(10)}`,
    );
  }
  for (const g of after.gateways) {
    const mine = runs.get(g.name) ?? [];
    const theirs = runs.get(`before:${g.name}`) ?? [];
    const d50 = added(mine, (r) => r.p50Ms, theirs);
    const d99 = added(mine, (r) => r.p99Ms, theirs);
    const lower = mine.filter((r, i) => r.p50Ms < (theirs[i] as Run).p50Ms).length;
    const cpu = median(
      mine.map((r, i) => (r.cpuUsPerRequest ?? NaN) / ((theirs[i] as Run).cpuUsPerRequest ?? NaN)),
    );
    console.log(
      `${g.name.padEnd(34)} after - before: p50 ${ms(d50)} ms (lower in ${lower} of ${mine.length} rounds), p99 ${ms(d99)} ms; CPU per request after / before ${cpu.toFixed(3)}`,
    );
  }
}

try {
  if (latencyMode) await compareLatency([after.direct, after.baseline, ...gateways]);
  else await compareCpu([after.baseline, ...gateways]);
} finally {
  await after.stop();
  await before.stop();
}
