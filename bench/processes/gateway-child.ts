/**
 * Starts bench/gateway-process.ts the way `npm start` starts the gateway: with the Node flags and
 * environment defaults of package.json's "start" script (start-script.ts). A variable already in
 * the environment wins, as with npm start.
 */
import { fileURLToPath } from "node:url";
import { startChild, type Child } from "./child-process.js";
import { START_SETTINGS, startEnvironment } from "./start-script.js";

const GATEWAY_MODULE = fileURLToPath(new URL("../gateway-process.ts", import.meta.url));

export interface GatewayInfo {
  url: string;
  adminKey: string;
}

export function startGateway(
  args: string[],
  extraNodeArgs: string[] = [],
): Promise<Child<GatewayInfo>> {
  return startChild<GatewayInfo>(
    GATEWAY_MODULE,
    args,
    [...START_SETTINGS.nodeFlags, ...extraNodeArgs],
    startEnvironment(process.env),
  );
}
