/**
 * One gateway for a probe script (scripts/memory-probe.ts, scripts/allocation-probe.ts): the fake
 * upstream, and the gateway on a fresh DATA_DIR (embedded store) or, given a Postgres server URL,
 * on a fresh database; one member key (default policy, or every guardrail off) and the bench's
 * models. `stop` ends both processes and removes the store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAST_MODEL, PACED_MODEL } from "../bench-models.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "../gateway-setup.js";
import type { Child } from "./child-process.js";
import { startChild } from "./child-process.js";
import { createFreshDatabase, type FreshDatabase } from "./fresh-database.js";
import { startGateway, type GatewayInfo } from "./gateway-child.js";

export interface ProbeGatewayOptions {
  /** The key's name, and the prefix of the temporary DATA_DIR. */
  name: string;
  /** A Postgres server URL: the gateway runs on a fresh database there; else the embedded store. */
  postgresUrl: string | undefined;
  /** Every guardrail off for the key (else the default policy). */
  guardrailsOff: boolean;
  /** Node flags for the gateway, after the start script's. */
  nodeArgs: string[];
}

export interface ProbeGateway {
  gateway: Child<GatewayInfo>;
  /** The gateway's base URL (without /v1) and the member key to call it with. */
  url: string;
  key: string;
  stop(): Promise<void>;
}

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

export async function startProbeGateway(options: ProbeGatewayOptions): Promise<ProbeGateway> {
  const upstream = await startChild<{ url: string }>(here("./upstream-process.ts"));
  let database: FreshDatabase | undefined;
  let dataDir: string | undefined;
  let gateway: Child<GatewayInfo> | undefined;
  const stop = async (): Promise<void> => {
    await gateway?.stop();
    await upstream.stop();
    await database?.drop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.postgresUrl) database = await createFreshDatabase(options.postgresUrl);
    else dataDir = await mkdtemp(join(tmpdir(), `evident-${options.name}-`));
    gateway = await startGateway([database?.url ?? dataDir ?? ""], options.nodeArgs);
    const { url, adminKey } = gateway.info;
    const policy = options.guardrailsOff ? GUARDRAILS_OFF : undefined;
    const key = await createMemberKey(url, adminKey, options.name, policy);
    await registerBenchModels(url, adminKey, upstream.info.url, [FAST_MODEL, PACED_MODEL], key);
    return { gateway, url, key, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
