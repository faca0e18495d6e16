/**
 * Before/after CPU per request of the gateway, interleaved in one run (a loaded machine swings
 * single runs by +-30%; the ratio of two runs taken a second apart holds).
 *
 *   npx tsx bench/ab-compare.ts <before-tree> <embedded|postgres> [rounds=12] [seconds=1]
 *
 * <before-tree> is another checkout of this repository (e.g. `git archive <commit> | tar -x -C
 * /tmp/before`, with node_modules and proto/gen linked or copied in). Both trees' wrk targets are
 * started (each its own upstream, bare proxy and fresh store); every round runs each gateway once
 * per kind (JSON and SSE, wrk -c50), order reversed every other round. Printed: the median CPU us
 * per request of each target, and the median over rounds of after / before of the same round.
 * Postgres: BENCH_POSTGRES_URL (default the local server).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chatBody, FAST_MODEL } from "./bench-models.js";
import { median } from "./load/percentile.js";
import { ensureWrk, runWrk } from "./load/wrk.js";
import { startWrkTargets, type StoreName, type WrkTarget } from "./sections/wrk-targets.js";

type Start = typeof startWrkTargets;

const [beforeTree, storeArg, roundsArg, secondsArg] = process.argv.slice(2);
if (!beforeTree || (storeArg !== "embedded" && storeArg !== "postgres")) {
  console.error("usage: tsx bench/ab-compare.ts <before-tree> <embedded|postgres> [rounds] [s]");
  process.exit(2);
}
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
const targets: WrkTarget[] = [
  after.baseline,
  ...after.gateways,
  ...before.gateways.map((g) => ({ ...g, name: `before:${g.name}` })),
];

async function cpuPerRequest(target: WrkTarget, sse: boolean): Promise<number> {
  const stats = target.stats;
  if (!stats) throw new Error(`${target.name} reports no CPU`);
  const start = await stats();
  const run = await runWrk(wrk as string, {
    url: `${target.base}/chat/completions`,
    connections: 50,
    seconds,
    headers: target.headers,
    body: chatBody(FAST_MODEL, sse),
  });
  const end = await stats();
  return (end.cpuUs - start.cpuUs) / Math.max(1, run.requests);
}

const cpu = new Map<string, number[]>();
try {
  for (const t of targets) for (const sse of [false, true]) await cpuPerRequest(t, sse);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const sse of [false, true])
      for (const t of order) {
        const key = `${t.name} ${sse ? "SSE" : "JSON"}`;
        cpu.set(key, [...(cpu.get(key) ?? []), await cpuPerRequest(t, sse)]);
      }
    console.log(`round ${round + 1}/${rounds} done`);
  }
} finally {
  await after.stop();
  await before.stop();
}

for (const [key, values] of cpu) {
  const line = `${key.padEnd(40)} CPU us/req median ${median(values).toFixed(0).padStart(5)}`;
  const previous = cpu.get(`before:${key}`);
  const paired = previous ? values.map((v, i) => v / (previous[i] as number)) : [];
  console.log(paired.length > 0 ? `${line}   after/before ${median(paired).toFixed(3)}` : line);
}
