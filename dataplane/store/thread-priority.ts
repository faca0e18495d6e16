import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** The calling thread's kernel id on Linux (`/proc/thread-self` is `<pid>/task/<tid>`). */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Gives the calling thread, and only it, the nice value `niceness` (Linux keeps one per thread),
 * so that when it and the process's other threads want a core at the same time, they get it
 * first. Raising it needs no privilege. Where it cannot be done (not Linux, refused) the thread
 * keeps its priority: a matter of speed, not of correctness.
 */
export function niceCurrentThread(niceness: number): void {
  const tid = currentThreadId();
  if (tid === undefined) return;
  try {
    setPriority(tid, niceness);
  } catch {
    // Left at the default priority.
  }
}
