/**
 * CPU time of a database server running on this machine, for the bench's "store CPU per
 * request": the sum over every process whose name is the server's (Postgres runs one process per
 * connection plus its background writers, all named `postgres`), read from /proc (Linux only).
 * Postgres processes are single-threaded, so /proc/<pid>/schedstat (nanoseconds on CPU) covers
 * each one. A process that exits between two readings takes its time with it: the bench's
 * connections are pooled, so the ones that serve the load live through the run.
 */
import { readdir } from "node:fs/promises";
import { procCpu } from "../load/thread-cpu.js";

/** Microseconds of CPU used so far by the processes named `name`; undefined without /proc. */
export async function processesCpuUs(name: string): Promise<number | undefined> {
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const proc of await Promise.all(pids.map((pid) => procCpu(`/proc/${pid}`)))) {
    if (proc?.name === name) total += proc.us;
  }
  return total;
}

/** True when a connection URL points at this machine (its server's processes are visible here). */
export function isLocalServer(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return ["localhost", "127.0.0.1", "::1", "[::1]", ""].includes(host);
  } catch {
    return false;
  }
}
