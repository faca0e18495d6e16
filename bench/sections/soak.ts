/**
 * Section "soak" (BENCH_SOAK_SECONDS, default 0 = skipped): the gateway under the default policy
 * at 50 connections (JSON chat) for that long on the embedded default store, then (with
 * BENCH_POSTGRES_URL) on a fresh Postgres database, then the bare proxy for as long, sampling each
 * process's memory every few seconds. Each soak gets its own processes (upstream, proxy, gateway),
 * started just before it and stopped after it, so no gateway idles beside the one measured.
 * Reports the RSS at the end, its growth per minute (least-squares slope over the samples after
 * the first fifth of the run, the figure; and over the second half, where a short run is
 * past the heap's warm-up), the main thread's V8 heap (used and reserved) at the end, and the RSS
 * outside that heap where the growth figure starts and at the end. RSS covers every thread of the
 * process, so the embedded store's worker thread and its WebAssembly memory too.
 */
import { chatBody, FAST_MODEL } from "../bench-models.js";
import { ensureWrk, runWrk } from "../load/wrk.js";
import type { CpuReply } from "../processes/child-control.js";
import type { Section, SectionContext, SectionReport, TargetCheck } from "./section.js";
import { startWrkTargets, type StoreName, type WrkTarget } from "./wrk-targets.js";

const SAMPLE_MS = 5_000;
const MIB = 2 ** 20;

interface Sample {
  seconds: number;
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
}

interface Soak {
  name: string;
  requests: number;
  errors: number;
  samples: Sample[];
}

/** Least-squares RSS slope in MiB/min over the samples from `fromFraction` of the run on. */
function slopePerMinute(samples: Sample[], fromFraction = 1 / 5): number {
  const kept = samples.slice(Math.floor(samples.length * fromFraction));
  if (kept.length < 2) return 0;
  const mx = kept.reduce((s, p) => s + p.seconds, 0) / kept.length;
  const my = kept.reduce((s, p) => s + p.rssMiB, 0) / kept.length;
  let num = 0;
  let den = 0;
  for (const p of kept) {
    num += (p.seconds - mx) * (p.rssMiB - my);
    den += (p.seconds - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

function toSample(seconds: number, stats: CpuReply): Sample {
  return {
    seconds,
    rssMiB: stats.rssBytes / MIB,
    heapUsedMiB: stats.heapUsedBytes / MIB,
    heapTotalMiB: stats.heapTotalBytes / MIB,
    externalMiB: stats.externalBytes / MIB,
  };
}

async function soak(wrk: string, target: WrkTarget, seconds: number): Promise<Soak> {
  const samples: Sample[] = [];
  const started = Date.now();
  const sample = async (): Promise<void> => {
    const stats = await target.stats?.();
    if (stats) samples.push(toSample((Date.now() - started) / 1000, stats));
  };
  await sample();
  const timer = setInterval(() => void sample(), SAMPLE_MS);
  try {
    const result = await runWrk(wrk, {
      url: `${target.base}/chat/completions`,
      connections: 50,
      seconds,
      headers: target.headers,
      body: chatBody(FAST_MODEL, false),
    });
    await sample();
    return {
      name: target.name,
      requests: result.requests,
      errors: result.non2xx + result.socketErrors,
      samples,
    };
  } finally {
    clearInterval(timer);
  }
}

const last = (s: Soak): Sample | undefined => s.samples.at(-1);

/** RSS outside the main thread's V8 heap and its Buffers: native memory, worker threads, stacks. */
const outsideHeap = (p: Sample | undefined): number =>
  p === undefined ? 0 : p.rssMiB - p.heapTotalMiB - p.externalMiB;

/** That figure where the growth figure starts (a fifth in) and at the end, "a -> b". */
function outsideHeapTrend(s: Soak): string {
  const from = s.samples[Math.floor(s.samples.length / 5)];
  return `${outsideHeap(from).toFixed(1)} -> ${outsideHeap(last(s)).toFixed(1)}`;
}

function row(s: Soak): string[] {
  const end = last(s);
  return [
    s.name,
    String(s.requests),
    String(s.errors),
    (s.samples[0]?.rssMiB ?? 0).toFixed(1),
    (end?.rssMiB ?? 0).toFixed(1),
    slopePerMinute(s.samples).toFixed(3),
    slopePerMinute(s.samples, 1 / 2).toFixed(3),
    (end?.heapUsedMiB ?? 0).toFixed(1),
    (end?.heapTotalMiB ?? 0).toFixed(1),
    outsideHeapTrend(s),
  ];
}

function targetsFor(gateway: Soak, baseline: Soak, seconds: number): TargetCheck[] {
  const ratio = (last(gateway)?.rssMiB ?? 0) / Math.max(1e-9, last(baseline)?.rssMiB ?? 0);
  const slope = slopePerMinute(gateway.samples);
  return [
    {
      name: `${gateway.name}: RSS after ${seconds} s at c=50 / bare proxy's`,
      value: Number(ratio.toFixed(2)),
      goal: "<= 2",
      met: ratio <= 2,
    },
    {
      name: `${gateway.name}: RSS growth MiB/min`,
      value: Number(slope.toFixed(3)),
      goal: "<= 0.5",
      met: slope <= 0.5,
    },
  ];
}

export const soakSection: Section = {
  name: "soak: memory under c=50 (gateway default policy, embedded store and Postgres; bare proxy)",
  async run({ options, log }: SectionContext): Promise<SectionReport> {
    const skipped = (why: string): SectionReport => ({
      name: this.name,
      table: [["skipped"], [why]],
      ratios: {},
      targets: [],
      notes: [],
      data: null,
    });
    if (options.soakSeconds <= 0) return skipped("BENCH_SOAK_SECONDS is not set");
    const wrk = await ensureWrk(log);
    if (wrk === undefined) return skipped("wrk is not installed and could not be installed");
    const stores: StoreName[] = options.postgresUrl ? ["embedded", "postgres"] : ["embedded"];
    const missing: Partial<Record<StoreName, string>> = {};
    // One process set per soak, started just before it and stopped after it: no gateway idles
    // beside the one measured, and each starts as fresh as `npm start` would.
    const soakOne = async (store: StoreName | undefined): Promise<Soak | undefined> => {
      const targets = await startWrkTargets(log, {
        postgresUrl: options.postgresUrl,
        gatewayProfileDir: undefined,
        stores: store === undefined ? [] : [store],
      });
      try {
        Object.assign(missing, targets.missing);
        const target =
          store === undefined
            ? targets.baseline
            : targets.gateways.find((t) => t.name === `gateway-default@${store}`);
        if (target === undefined) return undefined;
        log(
          `soak: ${store === undefined ? "bare proxy" : target.name} for ${options.soakSeconds} s`,
        );
        return await soak(wrk, target, options.soakSeconds);
      } finally {
        await targets.stop();
      }
    };
    const runs: Soak[] = [];
    for (const store of stores) {
      const run = await soakOne(store);
      if (run) runs.push(run);
    }
    if (runs.length === 0) return skipped("no gateway could be started");
    const baseline = await soakOne(undefined);
    if (baseline === undefined) return skipped("the bare proxy could not be started");
    const ratios: Record<string, number> = {};
    for (const run of runs) {
      const store = run.name.split("@")[1] ?? run.name;
      ratios[`${store}_rss_over_baseline`] =
        (last(run)?.rssMiB ?? 0) / Math.max(1e-9, last(baseline)?.rssMiB ?? 0);
      ratios[`${store}_rss_growth_mib_per_min`] = slopePerMinute(run.samples);
      ratios[`${store}_rss_growth_second_half_mib_per_min`] = slopePerMinute(run.samples, 1 / 2);
    }
    return {
      name: this.name,
      table: [
        [
          "process",
          "requests",
          "errors",
          "RSS start MiB",
          "RSS end MiB",
          "growth MiB/min",
          "growth, 2nd half",
          "heap used MiB",
          "heap total MiB",
          "outside heap MiB, 1/5 -> end",
        ],
        ...runs.map(row),
        row({ ...baseline, name: "baseline" }),
      ],
      ratios,
      targets: runs.flatMap((run) => targetsFor(run, baseline, options.soakSeconds)),
      notes: [
        "the issue's figure is for 600 s (BENCH_SOAK_SECONDS=600)",
        "heap used/total: the main thread's V8 heap at the end (garbage not yet collected included)",
        "outside heap: RSS less the main thread's V8 heap (total) and its Buffers (external), where the growth figure starts and at the end: native memory, the embedded store's worker thread and its WebAssembly memory, and heap pages V8 keeps resident after a peak but no longer counts",
        "each process set (upstream, proxy, one gateway) is started just before its soak and stopped after it",
        ...Object.entries(missing).map(([store, why]) => `${store}: not measured (${why})`),
      ],
      data: { gateways: runs, baseline },
    };
  },
};
