/**
 * Section "soak" (BENCH_SOAK_SECONDS, default 0 = skipped): the gateway on the embedded default
 * store under the default policy at 50 connections (JSON chat) for that long, then the bare proxy
 * for as long, sampling each process's RSS every few seconds. Reports the RSS at the end and its
 * growth per minute (least-squares slope over the samples after the first fifth of the run).
 */
import { chatBody, FAST_MODEL } from "../bench-models.js";
import { ensureWrk, runWrk } from "../load/wrk.js";
import type { Section, SectionContext, SectionReport } from "./section.js";
import { startWrkTargets, type WrkTarget } from "./wrk-targets.js";

const SAMPLE_MS = 5_000;

interface Soak {
  requests: number;
  errors: number;
  samples: { seconds: number; rssMiB: number }[];
}

function slopePerMinute(samples: Soak["samples"]): number {
  const kept = samples.slice(Math.floor(samples.length / 5));
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

async function soak(wrk: string, target: WrkTarget, seconds: number): Promise<Soak> {
  const samples: Soak["samples"] = [];
  const started = Date.now();
  const sample = async (): Promise<void> => {
    const stats = await target.stats?.();
    if (stats)
      samples.push({ seconds: (Date.now() - started) / 1000, rssMiB: stats.rssBytes / 2 ** 20 });
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
    return { requests: result.requests, errors: result.non2xx + result.socketErrors, samples };
  } finally {
    clearInterval(timer);
  }
}

export const soakSection: Section = {
  name: "soak: RSS under c=50 (gateway default policy, embedded store; bare proxy)",
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
    const targets = await startWrkTargets(log, {
      postgresUrl: undefined,
      gatewayProfileDir: undefined,
      stores: ["embedded"],
    });
    try {
      const gateway = targets.gateways.find((t) => t.name === "gateway-default@embedded");
      if (gateway === undefined) return skipped("the gateway could not be started");
      log(`soak: gateway for ${options.soakSeconds} s`);
      const g = await soak(wrk, gateway, options.soakSeconds);
      log(`soak: bare proxy for ${options.soakSeconds} s`);
      const b = await soak(wrk, targets.baseline, options.soakSeconds);
      const last = (s: Soak): number => s.samples.at(-1)?.rssMiB ?? 0;
      const gSlope = slopePerMinute(g.samples);
      const rssRatio = last(g) / Math.max(1e-9, last(b));
      return {
        name: this.name,
        table: [
          ["process", "requests", "errors", "RSS start MiB", "RSS end MiB", "growth MiB/min"],
          ...[
            ["gateway-default@embedded", g],
            ["baseline", b],
          ].map(([name, s]) => {
            const run = s as Soak;
            return [
              name as string,
              String(run.requests),
              String(run.errors),
              (run.samples[0]?.rssMiB ?? 0).toFixed(1),
              last(run).toFixed(1),
              slopePerMinute(run.samples).toFixed(3),
            ];
          }),
        ],
        ratios: { gateway_rss_over_baseline: rssRatio, gateway_rss_growth_mib_per_min: gSlope },
        targets: [
          {
            name: `RSS after ${options.soakSeconds} s at c=50 / bare proxy's`,
            value: Number(rssRatio.toFixed(2)),
            goal: "<= 2",
            met: rssRatio <= 2,
          },
          {
            name: "RSS growth MiB/min",
            value: Number(gSlope.toFixed(3)),
            goal: "<= 0.5",
            met: gSlope <= 0.5,
          },
        ],
        notes: ["the issue's figure is for 600 s (BENCH_SOAK_SECONDS=600)"],
        data: { gateway: g, baseline: b },
      };
    } finally {
      await targets.stop();
    }
  },
};
