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
import { CHAT_SIZED_RECORD, idleFor, timeEach } from "../bench/sections/wrk-disk-floor.js";
import { percentile } from "../bench/load/percentile.js";
import { AuditSpool } from "../dataplane/audit/audit-spool.js";

const appends = Number(process.argv[2] ?? 600);

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Each series: the idle gap before every append and how it is spent. */
const RUNS: { gapMs: number; mode: string; before?: () => Promise<void> | void }[] = [
  { gapMs: 0, mode: "back to back" },
  ...[0.1, 0.3, 1, 3].map((gapMs) => ({ gapMs, mode: "spinning", before: () => spin(gapMs) })),
  // A timer waits at least a millisecond, so only gaps that long are also spent asleep.
  ...[1, 3].map((gapMs) => ({ gapMs, mode: "asleep", before: idleFor(gapMs) })),
];

const dir = await mkdtemp(join(tmpdir(), "evident-disk-idle-wake-"));
try {
  const spool = await AuditSpool.open(dir, 2 ** 40);
  await spool.spareReady();
  const append = () => spool.append([CHAT_SIZED_RECORD]);
  await timeEach(200, append); // warm-up
  for (const { gapMs, mode, before } of RUNS) {
    const times = (await timeEach(appends, append, before)).map((ms) => ms * 1000);
    const p50 = percentile(times, 50).toFixed(0);
    const p90 = percentile(times, 90).toFixed(0);
    console.log(
      `idle ${String(gapMs).padEnd(4)} ms, ${mode.padEnd(12)} p50 ${p50} µs, p90 ${p90} µs`,
    );
  }
  await spool.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
