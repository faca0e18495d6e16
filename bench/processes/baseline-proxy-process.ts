/**
 * The baseline proxy in its own process: `baseline-proxy-process.ts <upstream base URL> [pipe]`
 * (`pipe`: the lean proxy; baseline-proxy.ts).
 * Prints {"url": "..."} once listening; stops on SIGTERM.
 */
import { announceReady } from "./child-control.js";
import { startBaselineProxy, type BodyRelay } from "../baseline-proxy.js";

const upstreamBase = process.argv[2];
if (!upstreamBase) throw new Error("usage: baseline-proxy-process.ts <upstream base URL>");
const relay: BodyRelay = process.argv[3] === "pipe" ? "pipe" : "pipeline";
const proxy = await startBaselineProxy(upstreamBase, relay);
announceReady({ url: proxy.url }, () => proxy.close());
