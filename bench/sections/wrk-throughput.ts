/**
 * Section "throughput (wrk)": the bare proxy and the gateway (guardrails off, default policy) on
 * each store (embedded default; Postgres with BENCH_POSTGRES_URL), driven by wrk at 50
 * connections (JSON chat and SSE chat) and at 1 connection (JSON latency, with direct as the
 * floor), in interleaved rounds whose order flips every round. Ratios are taken per round
 * against the baseline of the same round, then the median over rounds.
 */
import { median } from "../load/percentile.js";
import { THREAD_GROUPS } from "../load/thread-cpu.js";
import { ensureWrk } from "../load/wrk.js";
import { diskFloorReport, measureDiskFloor, type DiskFloor } from "./wrk-disk-floor.js";
import { CONNECTIONS, measure, type Kind, type Run, type Runs } from "./wrk-run.js";
import type { Section, SectionContext, SectionReport, TargetCheck } from "./section.js";
import { startWrkTargets, type StoreName, type WrkTarget } from "./wrk-targets.js";

/** The second reference's name (wrk-targets.ts). */
const LEAN = "lean-proxy";

const key = (target: string, kind: Kind): string => `${target}/${kind}`;
const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits);

function perRound(
  runs: Runs,
  a: string,
  b: string,
  kind: Kind,
  value: (r: Run) => number | undefined,
  combine: (x: number, y: number) => number,
  valueOfB: (r: Run) => number | undefined = value,
): number | undefined {
  const xs = runs.get(key(a, kind)) ?? [];
  const ys = runs.get(key(b, kind)) ?? [];
  const out: number[] = [];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = value(xs[i]!);
    const y = valueOfB(ys[i]!);
    if (x !== undefined && y !== undefined) out.push(combine(x, y));
  }
  return out.length === 0 ? undefined : median(out);
}

function med(runs: Runs, target: string, kind: Kind, value: (r: Run) => number | undefined) {
  const values = (runs.get(key(target, kind)) ?? [])
    .map(value)
    .filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : median(values);
}

function report(
  name: string,
  targets: WrkTarget[],
  runs: Runs,
  missing: Partial<Record<StoreName, string>>,
  seconds: number,
  floor: DiskFloor | undefined,
): SectionReport {
  const ratio = (x: number, y: number): number => x / y;
  const diff = (x: number, y: number): number => x - y;
  const rps = (r: Run): number => r.requestsPerSecond;
  const cpu = (r: Run): number | undefined => r.cpuUsPerRequest;
  const storeCpu = (r: Run): number | undefined => r.storeCpuUsPerRequest;
  const withStore = (r: Run): number | undefined =>
    r.cpuUsPerRequest === undefined || r.storeCpuUsPerRequest === undefined
      ? undefined
      : r.cpuUsPerRequest + r.storeCpuUsPerRequest;
  const table = [
    [
      "target",
      "JSON req/s",
      "SSE req/s",
      "JSON / base",
      "SSE / base",
      "CPU us/req",
      "CPU / base",
      "store us/req",
      "+store / base",
      "RSS MiB",
      "p50 ms c=1",
      "p99 ms c=1",
      "+p50 ms",
      "+p99 ms",
      "errors",
    ],
  ];
  const ratios: Record<string, number | null> = {};
  const targetsMet: TargetCheck[] = [];
  const leanNotes: string[] = [];
  for (const t of targets) {
    const json = perRound(runs, t.name, "baseline", "json", rps, ratio);
    const sse = perRound(runs, t.name, "baseline", "sse", rps, ratio);
    const cpuRatio = perRound(runs, t.name, "baseline", "json", cpu, ratio);
    const withStoreRatio = perRound(runs, t.name, "baseline", "json", withStore, ratio, cpu);
    const addedP50 = perRound(runs, t.name, "direct", "latency", (r) => r.p50Ms, diff);
    const addedP99 = perRound(runs, t.name, "direct", "latency", (r) => r.p99Ms, diff);
    const rss = Math.max(...(runs.get(key(t.name, "json")) ?? []).map((r) => r.rssMiB ?? 0));
    const errors = (["json", "sse", "latency"] as const)
      .flatMap((k) => runs.get(key(t.name, k)) ?? [])
      .reduce((sum, r) => sum + r.non2xx + r.socketErrors, 0);
    table.push([
      t.name,
      fmt(med(runs, t.name, "json", rps)),
      fmt(med(runs, t.name, "sse", rps)),
      fmt(json, 3),
      fmt(sse, 3),
      fmt(med(runs, t.name, "json", cpu)),
      fmt(cpuRatio, 2),
      fmt(med(runs, t.name, "json", storeCpu)),
      fmt(withStoreRatio, 2),
      t.stats ? fmt(rss, 1) : "-",
      fmt(
        med(runs, t.name, "latency", (r) => r.p50Ms),
        3,
      ),
      fmt(
        med(runs, t.name, "latency", (r) => r.p99Ms),
        3,
      ),
      fmt(addedP50, 3),
      fmt(addedP99, 3),
      String(errors),
    ]);
    if (!t.name.startsWith("gateway")) continue;
    const id = t.name.replace(/[-@]/g, "_");
    Object.assign(ratios, {
      [`${id}_over_baseline_json_rps`]: json ?? null,
      [`${id}_over_baseline_sse_rps`]: sse ?? null,
      [`${id}_cpu_per_request_over_baseline`]: cpuRatio ?? null,
      [`${id}_added_p50_ms`]: addedP50 ?? null,
      [`${id}_added_p99_ms`]: addedP99 ?? null,
    });
    if (withStoreRatio !== undefined)
      ratios[`${id}_cpu_with_store_server_over_baseline`] = withStoreRatio;
    const leanJson = perRound(runs, t.name, LEAN, "json", rps, ratio);
    if (leanJson !== undefined) {
      const leanSse = perRound(runs, t.name, LEAN, "sse", rps, ratio);
      const leanCpu = perRound(runs, t.name, LEAN, "json", cpu, ratio);
      Object.assign(ratios, {
        [`${id}_over_lean_proxy_json_rps`]: leanJson,
        [`${id}_over_lean_proxy_sse_rps`]: leanSse ?? null,
        [`${id}_cpu_per_request_over_lean_proxy`]: leanCpu ?? null,
      });
      leanNotes.push(
        `against the lean proxy, ${t.name}: throughput JSON ${fmt(leanJson, 3)}, SSE ${fmt(leanSse, 3)}; CPU per request ${fmt(leanCpu, 2)}`,
      );
    }
    const goal = t.name.startsWith("gateway-off") ? 0.7 : 0.5;
    const check = (what: string, value: number | undefined, text: string, met: boolean) =>
      targetsMet.push({
        name: `${t.name}: ${what}`,
        value: value === undefined ? "n/a" : Number(value.toFixed(3)),
        goal: text,
        met: value === undefined ? undefined : met,
      });
    check("throughput / baseline, JSON", json, `>= ${goal}`, (json ?? 0) >= goal);
    check("throughput / baseline, SSE", sse, `>= ${goal}`, (sse ?? 0) >= goal);
    check("CPU per request / baseline", cpuRatio, "<= 2.5", (cpuRatio ?? Infinity) <= 2.5);
    check("added p50 ms over direct, c=1", addedP50, "<= 0.6", (addedP50 ?? Infinity) <= 0.6);
    check("added p99 ms over direct, c=1", addedP99, "<= 3", (addedP99 ?? Infinity) <= 3);
  }
  const disk = diskFloorReport(floor);
  Object.assign(ratios, disk.ratios);
  const notes = [
    `wrk -t1 -c${CONNECTIONS}, ${seconds} s per run; latency: wrk -c1 with its own percentiles`,
    "ratios: per round against the baseline (or direct) of the same round, then the median over rounds",
    "CPU us/req: process.cpuUsage() of the hop process around each JSON run / requests served",
    "store us/req: the local Postgres server's processes (/proc) around each JSON run / requests; not in the gateway's CPU (the embedded store's worker is), but on the same cores; +store / base: both over the baseline's",
    "lean-proxy: the baseline relaying with .pipe() instead of stream.pipeline (no DOMException per response); the targets are stated against the baseline, the lines below say the same ratios against this leaner reference",
    ...disk.notes,
    ...leanNotes,
    ...threadNotes(targets, runs),
    ...Object.entries(missing).map(([store, why]) => `gateway on ${store} not measured: ${why}`),
  ];
  const data = Object.fromEntries(runs);
  return { name, table, ratios, targets: targetsMet, notes, data };
}

/**
 * One line per hop process: its CPU per request by thread group (JSON, median over rounds), so a
 * full run says where the gateway's CPU goes next to the bare proxy's; then one per hop: how much
 * of the run its event loop was on a core, and how long it waited for one while ready to run (on
 * a machine whose cores wrk, the upstream and the store share, what sets the throughput), and how
 * its time on a core divides between its own code and the kernel (system calls, faults).
 */
function threadNotes(targets: WrkTarget[], runs: Runs): string[] {
  const lines: string[] = [];
  for (const t of targets) {
    const parts = THREAD_GROUPS.map((group) => {
      const us = med(runs, t.name, "json", (r) => r.threadCpuUsPerRequest?.[group]);
      return us === undefined || us < 0.5 ? undefined : `${group} ${fmt(us)}`;
    }).filter((part): part is string => part !== undefined);
    if (parts.length > 0) lines.push(`CPU us/req by thread, JSON, ${t.name}: ${parts.join(", ")}`);
  }
  for (const t of targets) {
    const onCore = med(runs, t.name, "json", (r) => r.eventLoopOnCorePct);
    const waiting = med(runs, t.name, "json", (r) => r.eventLoopWaitUsPerRequest);
    if (onCore === undefined || waiting === undefined) continue;
    const user = med(runs, t.name, "json", (r) => r.eventLoopUserUsPerRequest);
    const kernel = med(runs, t.name, "json", (r) => r.eventLoopKernelUsPerRequest);
    const split =
      user === undefined || kernel === undefined
        ? ""
        : `; of its time on a core, its own code ${fmt(user)} us/req, the kernel ${fmt(kernel)}`;
    lines.push(
      `event loop, JSON, ${t.name}: on a core ${fmt(onCore)}% of the run, ready but waiting for a core ${fmt(waiting, 1)} us/req${split}`,
    );
  }
  return lines;
}

export const wrkThroughputSection: Section = {
  name: "throughput (wrk): bare proxy vs gateway, guardrails off and default policy, per store",
  async run(context: SectionContext): Promise<SectionReport> {
    const { options, log } = context;
    const wrk = await ensureWrk(log);
    if (wrk === undefined)
      return {
        name: this.name,
        table: [["skipped"], ["wrk is not installed and could not be installed"]],
        ratios: {},
        targets: [],
        notes: [],
        data: null,
      };
    const stores: StoreName[] = options.postgresUrl ? ["embedded", "postgres"] : ["embedded"];
    const targets = await startWrkTargets(log, {
      postgresUrl: options.postgresUrl,
      gatewayProfileDir: options.gatewayProfileDir,
      stores,
      leanProxy: true,
    });
    const runs: Runs = new Map();
    const record = (name: string, kind: Kind, run: Run): void => {
      runs.set(key(name, kind), [...(runs.get(key(name, kind)) ?? []), run]);
    };
    const lean = targets.leanProxy ? [targets.leanProxy] : [];
    const loaded = [targets.baseline, ...lean, ...targets.gateways];
    let floor: DiskFloor | undefined;
    try {
      // Warm-up (JIT, pools, caches) on both paths before anything is recorded.
      for (const t of loaded)
        for (const kind of ["json", "sse"] as const) await measure(wrk, t, kind, 1);
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? loaded : [...loaded].reverse();
        for (const kind of ["json", "sse"] as const)
          for (const t of order)
            record(t.name, kind, await measure(wrk, t, kind, options.throughputSeconds));
        const latencyOrder =
          round % 2 === 0 ? [targets.direct, ...loaded] : [...loaded, targets.direct].reverse();
        for (const t of latencyOrder)
          record(t.name, "latency", await measure(wrk, t, "latency", options.latencySeconds));
        log(`wrk round ${round + 1}/${options.rounds} done`);
      }
      // After the rounds, so that its disk and cores never overlap a measured run.
      floor = await measureDiskFloor(wrk, targets.baseline);
    } finally {
      await targets.stop();
    }
    return report(
      this.name,
      [targets.direct, ...loaded],
      runs,
      targets.missing,
      options.throughputSeconds,
      floor,
    );
  },
};
