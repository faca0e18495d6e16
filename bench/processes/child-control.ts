/**
 * The child side of bench/processes/child-process.ts: print one JSON line when ready, answer
 * "cpu" lines on stdin with this process's CPU time so far and its RSS, and close cleanly on SIGTERM.
 */
import { createInterface } from "node:readline";
import { getHeapSpaceStatistics } from "node:v8";

export interface CpuReply {
  /** User + system CPU time of this process so far, in microseconds. */
  cpuUs: number;
  /** Resident set size now, in bytes (every thread of the process: the PGlite worker too). */
  rssBytes: number;
  /** The main thread's V8 heap in use, and memory outside it (Buffers, ArrayBuffers), in bytes. */
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  /** Size of each V8 heap space of the main thread (new_space, old_space, code_space...), bytes. */
  heapSpaceBytes?: Record<string, number>;
}

export function announceReady(info: object, close: () => Promise<void>): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() !== "cpu") return;
    const { user, system } = process.cpuUsage();
    const memory = process.memoryUsage();
    const reply: CpuReply = {
      cpuUs: user + system,
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
      arrayBuffersBytes: memory.arrayBuffers,
      heapSpaceBytes: Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]),
      ),
    };
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
  process.once("SIGTERM", () => {
    lines.close();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
