/**
 * CPU time of a process's threads, by kind, read from /proc/<pid>/task/<tid>/schedstat (ns on
 * CPU). Linux only: elsewhere, or when the process is gone, the reading is undefined.
 */
import { readdir, readFile } from "node:fs/promises";

/** The thread groups in report order; threads Node does not name go under "other". */
export const THREAD_GROUPS = ["main", "workers", "V8 helpers", "thread pool", "other"] as const;
export type ThreadGroup = (typeof THREAD_GROUPS)[number];

/** What Node names its threads, and the group each is reported under. */
const GROUPS: Readonly<Record<string, ThreadGroup>> = {
  MainThread: "main",
  WorkerThread: "workers",
  V8Worker: "V8 helpers",
  "libuv-worker": "thread pool",
};

/** The group a thread of this name is reported under. */
export function threadGroup(name: string): ThreadGroup {
  return GROUPS[name] ?? "other";
}

/**
 * The name (`comm`) and CPU µs used so far of a process or thread, from its /proc directory
 * (`/proc/<pid>` or `/proc/<pid>/task/<tid>`); undefined when it is gone or unreadable.
 */
export async function procCpu(dir: string): Promise<{ name: string; us: number } | undefined> {
  try {
    const [comm, sched] = await Promise.all([
      readFile(`${dir}/comm`, "utf8"),
      readFile(`${dir}/schedstat`, "utf8"),
    ]);
    const us = Number(sched.split(" ")[0]) / 1000;
    return Number.isFinite(us) ? { name: comm.trim(), us } : undefined;
  } catch {
    return undefined;
  }
}

/** CPU µs used so far by each thread of `pid`, summed by thread name. */
export async function threadCpuByName(pid: number): Promise<Map<string, number> | undefined> {
  let tids: string[];
  try {
    tids = await readdir(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const out = new Map<string, number>();
  for (const thread of await Promise.all(tids.map((tid) => procCpu(`/proc/${pid}/task/${tid}`)))) {
    if (thread) out.set(thread.name, (out.get(thread.name) ?? 0) + thread.us);
  }
  return out;
}

/** CPU µs per group used between two readings of threadCpuByName, divided by `requests`. */
export function perRequestByGroup(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  requests: number,
): Record<ThreadGroup, number> {
  const out = Object.fromEntries(THREAD_GROUPS.map((g) => [g, 0])) as Record<ThreadGroup, number>;
  for (const [name, us] of after) {
    out[threadGroup(name)] += (us - (before.get(name) ?? 0)) / Math.max(1, requests);
  }
  return out;
}

/**
 * Time a thread spent on a core and ready to run but waiting for one, in µs; and of its time on a
 * core, how much was its own code (user) and how much the kernel's work for it (system calls,
 * faults), from /proc's clock ticks: 10 ms steps, so only a reading over many requests tells.
 */
export interface ThreadSchedule {
  onCoreUs: number;
  waitingUs: number;
  userUs: number;
  kernelUs: number;
}

/** /proc's clock tick (USER_HZ), fixed at 100 a second on Linux whatever the kernel's own HZ. */
const TICK_US = 10_000;

/**
 * The same for a process's event loop (its first thread, whose id is the process's): the first
 * two fields of its schedstat (ns on a core, ns in the run queue), and utime and stime of its stat;
 * undefined when it is gone or this is not Linux.
 */
export async function eventLoopSchedule(pid: number): Promise<ThreadSchedule | undefined> {
  try {
    const dir = `/proc/${pid}/task/${pid}`;
    const [sched, stat] = await Promise.all([
      readFile(`${dir}/schedstat`, "utf8"),
      readFile(`${dir}/stat`, "utf8"),
    ]);
    const [onCore, waiting] = sched.split(" ").map(Number);
    // Fields after the command name (which may hold spaces and parentheses): state is the first,
    // utime the twelfth, stime the thirteenth (proc(5): fields 14 and 15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const user = Number(fields[11]);
    const kernel = Number(fields[12]);
    if (![onCore, waiting, user, kernel].every(Number.isFinite)) return undefined;
    return {
      onCoreUs: (onCore as number) / 1000,
      waitingUs: (waiting as number) / 1000,
      userUs: user * TICK_US,
      kernelUs: kernel * TICK_US,
    };
  } catch {
    return undefined;
  }
}
