/**
 * The baseline proxy in its own process: `baseline-proxy-process.ts <upstream base URL>`.
 * Prints {"url": "..."} once listening; stops on SIGTERM.
 */
import { announceReady } from "./child-control.js";
import { startBaselineProxy } from "../baseline-proxy.js";

const upstreamBase = process.argv[2];
if (!upstreamBase) throw new Error("usage: baseline-proxy-process.ts <upstream base URL>");
const proxy = await startBaselineProxy(upstreamBase);
announceReady({ url: proxy.url }, () => proxy.close());
