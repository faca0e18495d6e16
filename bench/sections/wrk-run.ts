/**
 * One wrk run against one target of the wrk section, with what the hop process used meanwhile:
 * its CPU (process.cpuUsage over its stdin), the local store server's CPU, its threads' CPU by
 * group and its event loop's time on a core (Linux, /proc).
 */
import {
  eventLoopSchedule,
  perRequestByGroup,
  threadCpuByName,
  type ThreadGroup,
} from "../load/thread-cpu.js";
import { runWrk, type WrkResult } from "../load/wrk.js";
import { chatSpec, type WrkTarget } from "./wrk-targets.js";

export const CONNECTIONS = 50;

export interface Run extends WrkResult {
  cpuUsPerRequest: number | undefined;
  /** The store server's own CPU per request (local Postgres); undefined for other targets. */
  storeCpuUsPerRequest?: number | undefined;
  /** The hop process's CPU per request by thread group (Linux, from /proc). */
  threadCpuUsPerRequest?: Record<ThreadGroup, number> | undefined;
  /** Share of the run the hop's event loop was on a core, in % (Linux). */
  eventLoopOnCorePct?: number | undefined;
  /** How long it was ready to run but waiting for a core, µs per request (Linux). */
  eventLoopWaitUsPerRequest?: number | undefined;
  /** Of its time on a core, µs per request in its own code and in the kernel (Linux, 10 ms ticks). */
  eventLoopUserUsPerRequest?: number | undefined;
  eventLoopKernelUsPerRequest?: number | undefined;
  rssMiB: number | undefined;
}

export type Kind = "json" | "sse" | "latency";
export type Runs = Map<string, Run[]>;

export async function measure(
  wrk: string,
  target: WrkTarget,
  kind: Kind,
  seconds: number,
): Promise<Run> {
  const before = await target.stats?.();
  const storeBefore = await target.storeServerCpuUs?.();
  const threadsBefore = target.pid === undefined ? undefined : await threadCpuByName(target.pid);
  const loopBefore = target.pid === undefined ? undefined : await eventLoopSchedule(target.pid);
  const result = await runWrk(wrk, {
    ...chatSpec(target, kind === "latency" ? 1 : CONNECTIONS, kind === "sse"),
    seconds,
  });
  const after = await target.stats?.();
  const storeAfter = await target.storeServerCpuUs?.();
  const threadsAfter = target.pid === undefined ? undefined : await threadCpuByName(target.pid);
  const loopAfter = target.pid === undefined ? undefined : await eventLoopSchedule(target.pid);
  const loop =
    loopBefore && loopAfter
      ? {
          onCoreUs: loopAfter.onCoreUs - loopBefore.onCoreUs,
          waitingUs: loopAfter.waitingUs - loopBefore.waitingUs,
          userUs: loopAfter.userUs - loopBefore.userUs,
          kernelUs: loopAfter.kernelUs - loopBefore.kernelUs,
        }
      : undefined;
  const perRequest = (used: number): number => used / Math.max(1, result.requests);
  return {
    ...result,
    cpuUsPerRequest: before && after ? perRequest(after.cpuUs - before.cpuUs) : undefined,
    storeCpuUsPerRequest:
      storeBefore !== undefined && storeAfter !== undefined
        ? perRequest(storeAfter - storeBefore)
        : undefined,
    threadCpuUsPerRequest:
      threadsBefore && threadsAfter
        ? perRequestByGroup(threadsBefore, threadsAfter, result.requests)
        : undefined,
    eventLoopOnCorePct: loop ? (100 * loop.onCoreUs) / (result.seconds * 1e6) : undefined,
    eventLoopWaitUsPerRequest: loop ? perRequest(loop.waitingUs) : undefined,
    eventLoopUserUsPerRequest: loop ? perRequest(loop.userUs) : undefined,
    eventLoopKernelUsPerRequest: loop ? perRequest(loop.kernelUs) : undefined,
    rssMiB: after ? after.rssBytes / 2 ** 20 : undefined,
  };
}
