/**
 * The three ways the inference benchmark reaches one fake upstream, each in its own process:
 * direct (no proxy), baseline (bench/baseline-proxy.ts) and gateway (bench/gateway-process.ts),
 * the last twice: with guardrails off for the calling key, and with the default policy.
 * The gateway is optional: when it cannot be set up, the reason is kept and the others still run.
 */
import { fileURLToPath } from "node:url";
import { FAST_MODEL, PACED_MODEL } from "../bench-models.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "../gateway-setup.js";
import { startChild, type Child } from "../processes/child-process.js";
import { startGateway } from "../processes/gateway-child.js";
import { createFreshDatabase, type FreshDatabase } from "../processes/fresh-database.js";

/**
 * gateway: the inference path with every guardrail detector off for the calling key (what issue 3
 * measures); gateway-guarded: the same process and models, with the default guardrail policy.
 */
export type TargetName = "direct" | "baseline" | "gateway" | "gateway-guarded";

export interface Target {
  name: TargetName;
  /** Base URL including /v1. */
  base: string;
  headers: Record<string, string>;
  /** CPU time used so far by the process between client and upstream (none for direct), in µs. */
  hopCpuUs: (() => Promise<number>) | undefined;
  /** CPU time used so far by the upstream process, in µs. */
  upstreamCpuUs: () => Promise<number>;
}

export interface Targets {
  targets: Target[];
  /** Why the gateway is not among the targets, when it is not. */
  gatewayMissing: string | undefined;
  stop(): Promise<void>;
}

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

export interface TargetOptions {
  gatewayProfileDir: string | undefined;
  /** Postgres server for the gateway's store; undefined: in-memory PGlite. */
  postgresUrl: string | undefined;
}

export async function startTargets(
  log: (line: string) => void,
  options: TargetOptions,
): Promise<Targets> {
  const children: Child<unknown>[] = [];
  let database: FreshDatabase | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
    await database?.drop();
  };
  try {
    const upstream = await startChild<{ url: string }>(here("../processes/upstream-process.ts"));
    children.push(upstream);
    const baseline = await startChild<{ url: string }>(
      here("../processes/baseline-proxy-process.ts"),
      [upstream.info.url],
    );
    children.push(baseline);
    // Direct requests carry a bearer header too, so every target receives the same bytes.
    const bearer = {
      authorization: "Bearer bench-not-checked",
      "content-type": "application/json",
    };
    const upstreamCpuUs = (): Promise<number> => upstream.cpuUs();
    const targets: Target[] = [
      {
        name: "direct",
        base: upstream.info.url,
        headers: bearer,
        hopCpuUs: undefined,
        upstreamCpuUs,
      },
      {
        name: "baseline",
        base: baseline.info.url,
        headers: bearer,
        hopCpuUs: () => baseline.cpuUs(),
        upstreamCpuUs,
      },
    ];
    let gatewayMissing: string | undefined;
    try {
      const profileDir = options.gatewayProfileDir;
      const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
      if (options.postgresUrl) database = await createFreshDatabase(options.postgresUrl);
      const gateway = await startGateway(database ? [database.url] : [], profile);
      children.push(gateway);
      const { url, adminKey } = gateway.info;
      const bareKey = await createMemberKey(url, adminKey, "bench", GUARDRAILS_OFF);
      const guardedKey = await createMemberKey(url, adminKey, "bench-guarded");
      await registerBenchModels(
        url,
        adminKey,
        upstream.info.url,
        [FAST_MODEL, PACED_MODEL],
        bareKey,
      );
      for (const [name, key] of [
        ["gateway", bareKey],
        ["gateway-guarded", guardedKey],
      ] as const) {
        targets.push({
          name,
          base: `${url}/v1`,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          hopCpuUs: () => gateway.cpuUs(),
          upstreamCpuUs,
        });
      }
    } catch (error) {
      gatewayMissing = error instanceof Error ? error.message : String(error);
      log(`gateway not measured: ${gatewayMissing}`);
    }
    return { targets, gatewayMissing, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
