/**
 * What a synced append to the local audit log costs after the disk has been idle for a while, as
 * at concurrency 1, where the gateway writes once per call with the rest of the call in between
 * (docs/benchmarks.md, "Issue 13, twenty-third pass"). For each idle gap, `appends` calls of
 * AuditSpool.append (one chat-sized record, as the bench's disk floor) in a fresh log under the
 * system's temporary directory, each after that gap, with the gap spent spinning (the core kept
 * busy, as the audit writer's active wait does) and, for gaps of a millisecond or more, also
 * asleep (a timer: the event loop and, on a VM, the core may halt). Printed: the p50 and p90 of
 * each, in µs.
 *
 *   npx tsx scripts/disk-idle-wake.ts [appends=600]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { CHAT_SIZED_RECORD } from "../bench/sections/wrk-disk-floor.js";
import { percentile } from "../bench/load/percentile.js";
import { AuditSpool } from "../dataplane/audit/audit-spool.js";

const appends = Number(process.argv[2] ?? 600);
const GAPS_MS = [0, 0.1, 0.3, 1, 3];

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = await mkdtemp(join(tmpdir(), "evident-disk-idle-wake-"));
try {
  const spool = await AuditSpool.open(dir, 2 ** 40);
  await spool.spareReady();
  for (let i = 0; i < 200; i++) await spool.append([CHAT_SIZED_RECORD]); // warm-up
  for (const gapMs of GAPS_MS) {
    const modes =
      gapMs === 0 ? ["back to back"] : gapMs >= 1 ? ["asleep", "spinning"] : ["spinning"];
    for (const mode of modes) {
      const times: number[] = [];
      for (let i = 0; i < appends; i++) {
        if (mode === "asleep") await sleep(gapMs);
        else if (mode === "spinning") spin(gapMs);
        const start = performance.now();
        await spool.append([CHAT_SIZED_RECORD]);
        times.push((performance.now() - start) * 1000);
      }
      const p50 = percentile(times, 50).toFixed(0);
      const p90 = percentile(times, 90).toFixed(0);
      console.log(
        `idle ${String(gapMs).padEnd(4)} ms, ${mode.padEnd(12)} p50 ${p50} µs, p90 ${p90} µs`,
      );
    }
  }
  await spool.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
