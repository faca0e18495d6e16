/**
 * The disk's part of a lone call's added latency, measured beside the wrk section's c=1 runs.
 *
 * With AUDIT_DURABILITY=local (the default), a reply leaves only once its audit record's synced
 * write to the local log is done, so at concurrency 1 every call waits for one synced write. How
 * long that takes is the machine's, not the gateway's: on the machines of issue 13 it ranged from
 * about 0.16 to 0.53 ms at the median, and its p99 alone can pass the 3 ms target. This probe makes
 * the same write (AuditSpool.append, one chat-sized record at a time, in a fresh log under the
 * system's temporary directory, where the bench's gateways keep their DATA_DIR) while wrk -c1
 * drives the bare proxy, as the c=1 runs keep the cores busy; the section prints it beside the
 * added latency so a reading says how much of the target the disk alone takes.
 *
 * Twice: back to back, and paced with a millisecond of idle before each append. A gateway at c=1
 * writes once per call, with the rest of the call (under a millisecond) between two writes, and
 * on the virtual disks of these machines a synced write that follows an idle spell is several
 * times slower than one that follows another (docs/benchmarks.md, "Issue 13, twenty-third pass":
 * about 0.06 ms back to back, 0.4 ms after 0.3 ms of idle, 0.7-0.8 ms after 1 ms). The paced
 * figure is the one a lone call waits for.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditSpool } from "../../dataplane/audit/audit-spool.js";
import type { PendingAuditRecord } from "../../dataplane/store/audit-repository.js";
import { percentile } from "../load/percentile.js";
import { runWrk } from "../load/wrk.js";
import { chatSpec, type WrkTarget } from "./wrk-targets.js";

/** A record about the size of a chat call's (about 1.2 KB as a JSON line). */
export const CHAT_SIZED_RECORD = {
  fields: { id: "aud_bench", customer_id: "c", occurred_at: "t", details: "x".repeat(1100) },
  content: null,
} as unknown as PendingAuditRecord;

export interface DiskFloor {
  appends: number;
  /** Back to back. */
  p50Ms: number;
  p99Ms: number;
  /** With PACE_MS of idle before each append (not timed). */
  paced: { p50Ms: number; p99Ms: number };
}

/** The pause before each paced append: about what the rest of a lone call takes. */
export const PACE_MS = 1;

/** Waits `ms` on a timer: the event loop (and, on a VM, the core) may go idle meanwhile. */
export const idleFor = (ms: number) => (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Most a loaded synced append is expected to take, for how long the load beside them must run. */
const APPEND_BUDGET_MS = 3;

/**
 * Times `appends` calls of `append`, one at a time, with `before` run (and awaited) ahead of each
 * and left out of its time; milliseconds each.
 */
export async function timeEach(
  appends: number,
  append: () => Promise<void>,
  before?: () => Promise<void> | void,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < appends; i++) {
    await before?.();
    const start = performance.now();
    await append();
    times.push(performance.now() - start);
  }
  return times;
}

/** Synced appends to a fresh local log while wrk -c1 drives `proxy`; undefined if that fails. */
export async function measureDiskFloor(
  wrk: string,
  proxy: WrkTarget,
  appends = 1000,
): Promise<DiskFloor | undefined> {
  const dir = await mkdtemp(join(tmpdir(), "evident-bench-disk-floor-"));
  try {
    const spool = await AuditSpool.open(dir, 2 ** 40);
    try {
      // Meant to outlast the appends (a loaded one rarely takes 3 ms). Settled at once either way
      // (when it ended; undefined if it failed), so a wrk that fails is no unhandled rejection.
      const loadEnded = runWrk(wrk, {
        ...chatSpec(proxy, 1),
        seconds: Math.ceil((appends * (2 * APPEND_BUDGET_MS + PACE_MS)) / 1000) + 2,
      }).then(
        (result) => (result.requests > 0 ? performance.now() : undefined),
        () => undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const append = () => spool.append([CHAT_SIZED_RECORD]);
      const times = await timeEach(appends, append);
      const paced = await timeEach(appends, append, idleFor(PACE_MS));
      const appendsEnded = performance.now();
      // Without the load beside every append, the numbers are not what the note says they are.
      const ended = await loadEnded;
      if (ended === undefined || ended < appendsEnded) return undefined;
      return {
        appends,
        p50Ms: percentile(times, 50),
        p99Ms: percentile(times, 99),
        paced: { p50Ms: percentile(paced, 50), p99Ms: percentile(paced, 99) },
      };
    } finally {
      await spool.close();
    }
  } catch {
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The note and ratios the wrk section reports for the probe. */
export function diskFloorReport(floor: DiskFloor | undefined): {
  notes: string[];
  ratios: Record<string, number>;
} {
  if (floor === undefined)
    return { notes: ["the disk's synced write under c=1 load could not be measured"], ratios: {} };
  return {
    notes: [
      `the disk: a synced append of one chat-sized audit record to the local log (what every reply waits for at c=1 with AUDIT_DURABILITY=local), ${floor.appends} in a row while wrk -c1 drives the bare proxy: p50 ${floor.p50Ms.toFixed(3)} ms, p99 ${floor.p99Ms.toFixed(3)} ms; then with ${PACE_MS} ms idle before each, as a lone caller's calls come: p50 ${floor.paced.p50Ms.toFixed(3)} ms, p99 ${floor.paced.p99Ms.toFixed(3)} ms; the added-latency targets (p50 0.6, p99 3) include the paced one`,
    ],
    ratios: {
      synced_append_under_c1_load_p50_ms: floor.p50Ms,
      synced_append_under_c1_load_p99_ms: floor.p99Ms,
      synced_append_paced_under_c1_load_p50_ms: floor.paced.p50Ms,
      synced_append_paced_under_c1_load_p99_ms: floor.paced.p99Ms,
    },
  };
}
