/**
 * The three ways the inference benchmark reaches one fake upstream, each in its own process:
 * direct (no proxy), baseline (bench/baseline-proxy.ts) and gateway (bench/gateway-process.ts).
 * The gateway is optional: when it cannot be set up, the reason is kept and the others still run.
 */
import { fileURLToPath } from "node:url";
import { FAST_MODEL, PACED_MODEL } from "../bench-models.js";
import { registerBenchModels } from "../gateway-setup.js";
import { startChild, type Child } from "../processes/child-process.js";

export type TargetName = "direct" | "baseline" | "gateway";

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

export async function startTargets(
  log: (line: string) => void,
  gatewayProfileDir: string | undefined,
): Promise<Targets> {
  const children: Child<unknown>[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
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
      const profile = gatewayProfileDir
        ? ["--cpu-prof", `--cpu-prof-dir=${gatewayProfileDir}`]
        : [];
      const gateway = await startChild<{ url: string; adminKey: string }>(
        here("../gateway-process.ts"),
        [],
        profile,
      );
      children.push(gateway);
      const { inferenceKey } = await registerBenchModels(
        gateway.info.url,
        gateway.info.adminKey,
        upstream.info.url,
        [FAST_MODEL, PACED_MODEL],
      );
      targets.push({
        name: "gateway",
        base: `${gateway.info.url}/v1`,
        headers: { authorization: `Bearer ${inferenceKey}`, "content-type": "application/json" },
        hopCpuUs: () => gateway.cpuUs(),
        upstreamCpuUs,
      });
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
