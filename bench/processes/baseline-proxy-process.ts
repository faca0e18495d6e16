/**
 * The baseline proxy in its own process: `baseline-proxy-process.ts <upstream base URL>`.
 * Prints {"url": "..."} once listening; stops on SIGTERM.
 */
import { startBaselineProxy } from "../baseline-proxy.js";

const upstreamBase = process.argv[2];
if (!upstreamBase) throw new Error("usage: baseline-proxy-process.ts <upstream base URL>");
const proxy = await startBaselineProxy(upstreamBase);
process.stdout.write(`${JSON.stringify({ url: proxy.url })}\n`);
process.once("SIGTERM", () => {
  proxy.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
