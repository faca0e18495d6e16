/**
 * The processes the wrk throughput section drives, each in its own process: the fake upstream,
 * the bare baseline proxy, and one gateway per store: the embedded default (PGlite on disk in a
 * fresh DATA_DIR, as `npm start` runs) and, with BENCH_POSTGRES_URL, a fresh Postgres database.
 * Every gateway is reached with two keys: guardrails off, and the default policy.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatBody, FAST_MODEL, PACED_MODEL } from "../bench-models.js";
import type { WrkSpec } from "../load/wrk.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "../gateway-setup.js";
import type { CpuReply } from "../processes/child-control.js";
import { startChild, type Child } from "../processes/child-process.js";
import { startGateway } from "../processes/gateway-child.js";
import { createFreshDatabase, type FreshDatabase } from "../processes/fresh-database.js";
import { isLocalServer, processesCpuUs } from "../processes/local-server-cpu.js";

export type StoreName = "embedded" | "postgres";

export interface WrkTarget {
  /** "direct", "baseline", or "gateway-off@embedded", "gateway-default@postgres"... */
  name: string;
  /** Base URL including /v1. */
  base: string;
  headers: Record<string, string>;
  /** CPU and RSS of the process between client and upstream; undefined for direct. */
  stats: (() => Promise<CpuReply>) | undefined;
  /** The process id of a gateway or the baseline (per-thread CPU from /proc); else undefined. */
  pid?: number | undefined;
  /**
   * CPU µs used so far by the store's own server when it runs on this machine (Postgres); not
   * part of `stats` (another process) but it shares the machine's cores. Undefined otherwise.
   */
  storeServerCpuUs?: (() => Promise<number | undefined>) | undefined;
}

export interface WrkTargets {
  direct: WrkTarget;
  baseline: WrkTarget;
  /**
   * The lean proxy: the baseline relaying bodies with `.pipe()` instead of `stream.pipeline`
   * (baseline-proxy.ts), a second reference; started only with `leanProxy`.
   */
  leanProxy: WrkTarget | undefined;
  gateways: WrkTarget[];
  /** Why a store's gateway is missing, by store. */
  missing: Partial<Record<StoreName, string>>;
  /** The fake upstream's process id (its CPU, beside the hop's, in scripts/machine-cpu-probe.ts). */
  upstreamPid: number | undefined;
  stop(): Promise<void>;
}

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

export interface WrkTargetOptions {
  postgresUrl: string | undefined;
  gatewayProfileDir: string | undefined;
  /** Which stores to start gateways on (the soak uses only the embedded one). */
  stores: readonly StoreName[];
  /** Also start the lean proxy (the wrk section's second reference). */
  leanProxy?: boolean;
}

export async function startWrkTargets(
  log: (line: string) => void,
  options: WrkTargetOptions,
): Promise<WrkTargets> {
  const children: Child<unknown>[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
    for (const cleanup of cleanups) await cleanup();
  };
  try {
    const upstream = await startChild<{ url: string }>(here("../processes/upstream-process.ts"));
    children.push(upstream);
    const baseline = await startChild<{ url: string }>(
      here("../processes/baseline-proxy-process.ts"),
      [upstream.info.url],
    );
    children.push(baseline);
    const lean = options.leanProxy
      ? await startChild<{ url: string }>(here("../processes/baseline-proxy-process.ts"), [
          upstream.info.url,
          "pipe",
        ])
      : undefined;
    if (lean) children.push(lean);
    const bearer = {
      authorization: "Bearer bench-not-checked",
      "content-type": "application/json",
    };
    const gateways: WrkTarget[] = [];
    const missing: Partial<Record<StoreName, string>> = {};
    for (const store of options.stores) {
      try {
        let argument: string;
        if (store === "postgres") {
          if (options.postgresUrl === undefined) throw new Error("BENCH_POSTGRES_URL is not set");
          const database: FreshDatabase = await createFreshDatabase(options.postgresUrl);
          cleanups.push(() => database.drop());
          argument = database.url;
        } else {
          const dataDir = await mkdtemp(join(tmpdir(), "evident-bench-data-"));
          cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
          argument = dataDir;
        }
        const profileDir = options.gatewayProfileDir;
        const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
        const gateway = await startGateway([argument], profile);
        children.push(gateway);
        const { url, adminKey } = gateway.info;
        const offKey = await createMemberKey(url, adminKey, `bench-${store}`, GUARDRAILS_OFF);
        const defaultKey = await createMemberKey(url, adminKey, `bench-guarded-${store}`);
        await registerBenchModels(
          url,
          adminKey,
          upstream.info.url,
          [FAST_MODEL, PACED_MODEL],
          offKey,
        );
        for (const [policy, key] of [
          ["off", offKey],
          ["default", defaultKey],
        ] as const) {
          gateways.push({
            name: `gateway-${policy}@${store}`,
            base: `${url}/v1`,
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            stats: () => gateway.stats(),
            pid: gateway.pid,
            storeServerCpuUs:
              store === "postgres" && options.postgresUrl && isLocalServer(options.postgresUrl)
                ? () => processesCpuUs("postgres")
                : undefined,
          });
        }
      } catch (error) {
        missing[store] = error instanceof Error ? error.message : String(error);
        log(`gateway on ${store} not measured: ${missing[store]}`);
      }
    }
    const proxyTarget = (name: string, proxy: Child<{ url: string }>): WrkTarget => ({
      name,
      base: proxy.info.url,
      headers: bearer,
      stats: () => proxy.stats(),
      pid: proxy.pid,
    });
    return {
      direct: { name: "direct", base: upstream.info.url, headers: bearer, stats: undefined },
      baseline: proxyTarget("baseline", baseline),
      leanProxy: lean && proxyTarget("lean-proxy", lean),
      gateways,
      missing,
      upstreamPid: upstream.pid,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** wrk's chat completion load on a target (FAST_MODEL): JSON, or SSE with `stream`. */
export function chatSpec(
  target: WrkTarget,
  connections: number,
  stream = false,
): Omit<WrkSpec, "seconds"> {
  return {
    url: `${target.base}/chat/completions`,
    connections,
    headers: target.headers,
    body: chatBody(FAST_MODEL, stream),
  };
}
